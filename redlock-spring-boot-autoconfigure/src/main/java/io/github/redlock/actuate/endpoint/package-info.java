/**
 * The {@code redlock} Actuator endpoint.
 */
@NullMarked
package io.github.redlock.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
