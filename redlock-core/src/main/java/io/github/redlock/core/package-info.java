/**
 * The Redlock algorithm over N independent Redis masters: {@link io.github.redlock.core.Redlock},
 * {@link io.github.redlock.core.RedlockLease} and {@link io.github.redlock.core.RedlockAcquisitionException}.
 * Every other type of this package is internal.
 */
@NullMarked
package io.github.redlock.core;

import org.jspecify.annotations.NullMarked;
