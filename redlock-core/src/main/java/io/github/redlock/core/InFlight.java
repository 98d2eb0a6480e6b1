package io.github.redlock.core;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The work under way with the nodes that {@link Redlock#close()} waits for before it closes the connections:
 * acquisitions and their attempts, and every release and clean-up. Without the wait, a lease granted to an
 * attempt that was in flight at the close (its caller gone) could not be released, and a clean-up queued
 * behind it would be dropped: the key would then block every other client for its whole ttl.
 * <p>
 * Only work that is under way is held here (each entry leaves when it completes), so the set is as small as the
 * nodes' queues allow.
 */
final class InFlight {

    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();

    /**
     * Keeps the close waiting until {@code work} completes.
     * @return {@code work}
     */
    <T> CompletableFuture<T> track(CompletableFuture<T> work) {
        if (!work.isDone()) {
            this.running.add(work);
            work.whenComplete((result, failure) -> this.running.remove(work));
        }
        return work;
    }

    /** The work under way now, e.g. to cancel the acquisitions that still wait. */
    List<CompletableFuture<?>> snapshot() {
        return List.copyOf(this.running);
    }

    /**
     * Waits until no work is under way, at most {@code boundNanos}; work that completes may start more (an
     * orphaned lease's release, a clean-up), which is waited for too.
     * @return whether everything completed within the bound
     */
    boolean awaitQuiet(long boundNanos) {
        long deadline = System.nanoTime() + boundNanos;
        while (!this.running.isEmpty()) {
            this.running.removeIf(CompletableFuture::isDone); // its own removal may not have run yet
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                CompletableFuture.allOf(this.running.toArray(CompletableFuture[]::new))
                        .exceptionally((failure) -> null)
                        .get(left, TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
            catch (Exception ex) {
                // timed out: the loop's deadline check ends the wait
            }
        }
        return true;
    }

}
