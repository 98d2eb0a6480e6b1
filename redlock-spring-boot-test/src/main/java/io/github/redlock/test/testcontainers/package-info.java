/**
 * Testcontainers support: every Redis container annotated with {@code @ServiceConnection("redlock")} becomes one
 * node of the Redlock, through one {@code RedlockConnectionDetails} bean.
 */
@NullMarked
package io.github.redlock.test.testcontainers;

import org.jspecify.annotations.NullMarked;
