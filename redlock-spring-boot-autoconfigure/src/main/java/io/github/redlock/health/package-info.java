/**
 * Actuator health of the Redlock nodes.
 */
@NullMarked
package io.github.redlock.health;

import org.jspecify.annotations.NullMarked;
