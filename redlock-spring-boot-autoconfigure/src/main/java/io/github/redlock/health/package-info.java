/**
 * Actuator health of the Redlock nodes.
 */
package io.github.redlock.health;
