/**
 * A Spring Integration lock registry backed by Redlock, for {@code LockRegistryLeaderInitiator} leader election.
 */
@NullMarked
package io.github.redlock.integration;

import org.jspecify.annotations.NullMarked;
