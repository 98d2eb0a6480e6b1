/**
 * A Spring Integration lock registry backed by Redlock, for {@code LockRegistryLeaderInitiator} leader election.
 */
package io.github.redlock.integration;
