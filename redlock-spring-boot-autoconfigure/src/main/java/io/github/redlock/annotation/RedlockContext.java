package io.github.redlock.annotation;

import java.util.Optional;

import io.github.redlock.core.RedlockLease;

/**
 * The lease of the lock that the running {@link Redlocked @Redlocked} method holds, for code that needs it: its
 * fencing token for the storage ({@link RedlockLease#fencingToken()}), its remaining validity, or its loss
 * signal.
 *
 * <pre>{@code
 * @Redlocked(key = "account:#{#id}", ttl = "10s")
 * void settle(String id) {
 *     long token = RedlockContext.currentLease().orElseThrow().fencingToken();
 *     accounts.updateIfNewer(id, balance, token); // UPDATE ... WHERE id = ? AND fence < ?
 * }
 * }</pre>
 *
 * The lease is the innermost one: a method annotated on another key sees its own lease, and a re-entrant call
 * on a key the thread holds already sees the outer call's lease, which it shares. A method that returns a
 * {@code CompletionStage} or a reactive type sees it while its body runs on the calling thread; work it hands
 * to other threads does not (pass the lease along). Outside annotated methods it is empty, unless code made a
 * lease current itself with {@link #open(RedlockLease)}.
 */
public final class RedlockContext {

    private static final ThreadLocal<RedlockLease> current = new ThreadLocal<>();

    private RedlockContext() {
    }

    /**
     * Returns the lease of the innermost lock the running annotated method holds on this thread.
     * @return the lease, or empty outside annotated methods
     */
    public static Optional<RedlockLease> currentLease() {
        return Optional.ofNullable(current.get());
    }

    /**
     * Makes a lease the current one on this thread until the returned scope is closed, which restores the one
     * before; the aspect does this around each annotated method. Code that acquires leases by hand may use it
     * for code it calls that reads {@link #currentLease()}. Close the scope on the same thread, in reverse order
     * of opening (try-with-resources).
     * @param lease the lease to make current
     * @return the scope to close
     * @throws IllegalArgumentException if {@code lease} is null
     */
    public static Scope open(RedlockLease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        RedlockLease previous = current.get();
        current.set(lease);
        return () -> {
            if (previous != null) {
                current.set(previous);
            }
            else {
                current.remove();
            }
        };
    }

    /**
     * A lease made current by {@link #open(RedlockLease)}; closing it restores the lease current before.
     */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {

        /**
         * Restores the lease that was current before this scope was opened; never throws.
         */
        @Override
        void close();

    }

}
