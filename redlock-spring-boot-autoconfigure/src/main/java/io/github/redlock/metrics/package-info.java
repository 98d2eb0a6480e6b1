/**
 * Micrometer meters of the Redlock starter.
 */
package io.github.redlock.metrics;
