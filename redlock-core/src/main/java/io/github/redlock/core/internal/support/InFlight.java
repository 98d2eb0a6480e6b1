package io.github.redlock.core.internal.support;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.core.Redlock;

/**
 * The work under way with the nodes that {@link Redlock#close()} waits for before it closes the connections:
 * acquisitions and their attempts, and every release and clean-up. Without the wait, a lease granted to an
 * attempt that was in flight at the close (its caller gone) could not be released, and a clean-up queued
 * behind it would be dropped: the key would then block every other client for its whole ttl.
 * <p>
 * Only work that is under way is held here (each entry leaves when it completes), so the set is as small as the
 * nodes' queues allow.
 */
public final class InFlight {

    /**
     * How deep this thread is in work that a close waits for while it completes an acquisition's future: the
     * caller's callbacks then run before that work ends, so a close they call must not wait for it.
     */
    private static final ThreadLocal<int[]> COMPLETING = ThreadLocal.withInitial(() -> new int[1]);

    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();

    /**
     * How many tracked futures have not completed: raised before one joins the set and lowered after it left,
     * so that it never reads zero while work is under way (the set's size is not read atomically).
     */
    private final AtomicInteger pending = new AtomicInteger();

    /**
     * Keeps the close waiting until {@code work} completes.
     * @return {@code work}
     */
    public <T> CompletableFuture<T> track(CompletableFuture<T> work) {
        if (!work.isDone()) {
            this.pending.incrementAndGet();
            this.running.add(work);
            work.whenComplete((result, failure) -> {
                this.running.remove(work);
                this.pending.decrementAndGet();
            });
        }
        return work;
    }

    /** The failure of an acquisition asked of, or cut short by, a closed {@code Redlock}. */
    public static IllegalStateException closed() {
        return new IllegalStateException("Redlock is closed; build a new one to acquire locks");
    }

    /**
     * Runs {@code completion}, which completes a caller's future from inside tracked work, marking this thread
     * meanwhile (see {@link #completingOnThisThread()}).
     */
    public static void completing(Runnable completion) {
        int[] depth = COMPLETING.get();
        depth[0]++;
        try {
            completion.run();
        }
        finally {
            depth[0]--;
        }
    }

    /**
     * Whether this thread is inside {@link #completing(Runnable)}: a close called here (from a caller's callback)
     * would wait for the very work that runs it.
     */
    public static boolean completingOnThisThread() {
        return COMPLETING.get()[0] > 0;
    }

    /** The work under way now, e.g. to cancel the acquisitions that still wait. */
    public List<CompletableFuture<?>> snapshot() {
        return List.copyOf(this.running);
    }

    /** How many tracked futures have not completed. */
    public int pending() {
        return this.pending.get();
    }

    /**
     * Waits until no work is under way, at most {@code boundNanos}, also when the thread is interrupted (its flag
     * is then set again); work that completes may start more (an orphaned lease's release, a clean-up), which is
     * waited for too.
     * @return whether everything completed within the bound
     */
    public boolean awaitQuiet(long boundNanos) {
        long deadline = System.nanoTime() + boundNanos;
        boolean interrupted = false;
        try {
            while (this.pending.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    CompletableFuture.allOf(this.running.toArray(CompletableFuture[]::new))
                            .exceptionally((failure) -> null)
                            .get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)), TimeUnit.NANOSECONDS);
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
                catch (ExecutionException | TimeoutException ex) {
                    // timed out (or work joined meanwhile): the loop looks again
                }
            }
            return true;
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

}
