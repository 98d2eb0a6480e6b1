/**
 * The internals of the core: the validated configuration of a {@code Redlock} with its defaults
 * ({@link io.github.redlock.core.internal.RedlockConfig}) and the wiring of its parts from it
 * ({@link io.github.redlock.core.internal.RedlockAssembly}); the subpackages hold the algorithm, in layers that depend only
 * downwards: {@code support} and {@code script} at the bottom, then {@code node}, {@code release}, {@code lease},
 * {@code guard}, and {@code engine} on top (see {@code docs/contributing/architecture.md}).
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal;

import org.jspecify.annotations.NullMarked;
