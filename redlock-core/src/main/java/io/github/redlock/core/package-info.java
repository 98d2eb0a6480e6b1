/**
 * The Redlock algorithm over N independent Redis masters: the public API. {@link io.github.redlock.core.Redlock}
 * (configured with {@link io.github.redlock.core.Redlock.Builder}) grants {@link io.github.redlock.core.RedlockLease}s
 * or throws {@link io.github.redlock.core.RedlockAcquisitionException}; bad settings and arguments throw
 * {@link io.github.redlock.core.RedlockArgumentException}. {@link io.github.redlock.core.NodeStatus} and
 * {@link io.github.redlock.core.RestartQuarantine} describe the nodes; {@link io.github.redlock.core.RedlockObserver},
 * {@link io.github.redlock.core.NodeConnector} and {@link io.github.redlock.core.RedlockClientResources} are the
 * extension points for integrations. The observations of {@code io.github.redlock.core.observation} are public too.
 * <p>
 * The algorithm itself lives in {@code io.github.redlock.core.internal} and its subpackages, which are not API and
 * may change in any release.
 */
@NullMarked
package io.github.redlock.core;

import org.jspecify.annotations.NullMarked;
