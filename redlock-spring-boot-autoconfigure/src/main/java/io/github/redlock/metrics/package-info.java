/**
 * Micrometer meters of the Redlock starter.
 */
@NullMarked
package io.github.redlock.metrics;

import org.jspecify.annotations.NullMarked;
