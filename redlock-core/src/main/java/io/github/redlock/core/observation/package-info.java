/**
 * Micrometer observations of lock operations (acquire, release, extend), for tracing: the context, the
 * replaceable convention and its default. Active only when an {@code ObservationRegistry} is given to
 * {@code Redlock.builder().observationRegistry(…)}; {@code micrometer-observation} is an optional dependency.
 */
@NullMarked
package io.github.redlock.core.observation;

import org.jspecify.annotations.NullMarked;
