/**
 * A ShedLock {@code LockProvider} backed by Redlock, so that {@code @SchedulerLock} holds over a quorum of nodes.
 */
@NullMarked
package io.github.redlock.shedlock;

import org.jspecify.annotations.NullMarked;
