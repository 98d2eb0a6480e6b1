/**
 * Real {@code redis-server} processes on free loopback ports for tests and demos, with fault injection.
 */
@NullMarked
package io.github.redlock.test;

import org.jspecify.annotations.NullMarked;
