/**
 * Auto-configuration of the Redlock health contributor.
 */
package io.github.redlock.autoconfigure.health;
