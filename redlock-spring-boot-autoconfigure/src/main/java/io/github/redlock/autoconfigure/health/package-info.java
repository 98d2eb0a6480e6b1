/**
 * Auto-configuration of the Redlock health contributor.
 */
@NullMarked
package io.github.redlock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
