/**
 * A ShedLock {@code LockProvider} backed by Redlock, so that {@code @SchedulerLock} holds over a quorum of nodes.
 */
package io.github.redlock.shedlock;
