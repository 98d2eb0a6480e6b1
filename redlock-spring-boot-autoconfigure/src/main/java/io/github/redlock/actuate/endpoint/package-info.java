/**
 * The {@code redlock} Actuator endpoint.
 */
package io.github.redlock.actuate.endpoint;
