package io.github.redlock.core.internal.lease;

import java.util.concurrent.CompletableFuture;

import io.github.redlock.core.RedlockObserver;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * What a lease needs from its lock: extension, release and a timer. A narrow view of the lock, so that a lease
 * knows nothing of how attempts are made.
 */
public interface LeaseOperations {

    /**
     * Asks every node that may hold the lease to keep its key at least {@code ttlMillis} more, and records
     * their answers in the lease's {@link NodeExpiries}.
     * @param by who asks (for observations)
     * @return a future of what the extension achieved; never completed exceptionally
     */
    CompletableFuture<ExtendOutcome> extend(LeaseHandle lease, long ttlMillis, Extension by);

    /**
     * Deletes the lease's key on every node where it still holds the lease's token, and stops listing it as held.
     * @return a future of whether a quorum still held it
     */
    CompletableFuture<Boolean> release(LeaseHandle lease);

    /**
     * Releases the lease in {@code keepMillis}: its keys are not deleted but left to expire in at most that long on
     * every node where they still hold its token, and it stops being listed as held.
     * @param keepMillis above 0
     * @return a future of whether a quorum still held it
     */
    CompletableFuture<Boolean> releaseLater(LeaseHandle lease, long keepMillis);

    /** Runs a task on the lock's shared timer (coarse: about 10 ms). */
    Timeout schedule(TimerTask task, long delayNanos);

    /** The longest time to live a lease may ask for, in ms. */
    long maxTtlMillis();

    /** How long a blocking caller waits for one quorum call at most. */
    long callBoundNanos();

    /** The lock's observer (guarded: it never throws), or null when there is none. */
    @Nullable RedlockObserver observer();

    /** Whether the lock was closed: nothing is extended or watched any more. */
    boolean isClosed();

}
