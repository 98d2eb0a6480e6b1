/**
 * A job that runs on the elected leader only: Spring Integration's leader initiator over a RedlockLockRegistry,
 * with a follower that takes over within ttl + heartbeat when the leader stops or dies.
 */
package io.github.redlock.sample.leader;
