/**
 * Auto-configuration of the Redlock meters.
 */
@NullMarked
package io.github.redlock.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
