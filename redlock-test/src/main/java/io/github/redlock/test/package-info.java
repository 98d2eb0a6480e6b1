/**
 * Real {@code redis-server} processes on free loopback ports for tests and demos, with fault injection.
 */
package io.github.redlock.test;
