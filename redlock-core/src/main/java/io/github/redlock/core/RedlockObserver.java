package io.github.redlock.core;

/**
 * Receives what a {@link Redlock} does, for metrics (the Spring Boot starter records them with Micrometer).
 * Methods are called on I/O threads: they must be fast and must not block. Every method does nothing by
 * default.
 */
public interface RedlockObserver {

    /**
     * A node answered one command of the algorithm, or counted as timed out.
     * @param node the node, {@code host:port}
     * @param command {@code set} (exclusive acquisition), {@code acquire-read}, {@code acquire-write}, {@code release}
     * (also the clean-up of a failed attempt), {@code extend} or {@code revoke} ({@link Redlock#revoke(String)})
     * @param outcome {@code ok} (answered, yes or no), {@code rejected} (not sent: disconnected), {@code error} or {@code timeout}
     * @param nanos time from sending to the answer (for a time-out, the node timeout)
     */
    default void nodeCommand(String node, String command, String outcome, long nanos) {
    }

    /**
     * A lease was released.
     * @param released whether a quorum still held it
     * @param nanos how long the release took
     */
    default void released(boolean released, long nanos) {
    }

    /**
     * A lease was extended, or the extension failed.
     * @param extended whether a quorum extended it within validity
     * @param nanos how long the extension took
     */
    default void extended(boolean extended, long nanos) {
    }

    /**
     * A lease was lost before its release: an extension was refused by a majority, an automatic extension
     * failed, its validity ran out while it was held, or its {@link Redlock} was closed. Called once per lease,
     * after {@link RedlockLease#lost()} completed, on the thread that noticed the loss (the lock's timer, an I/O
     * thread, or the thread that called {@link RedlockLease#extend(Duration)} or {@link Redlock#close()}).
     * @param lease the lost lease ({@link RedlockLease#key()}, {@link RedlockLease#fencingToken()})
     * @param reason why it was lost, as {@link RedlockLease#lostReason()} says
     */
    default void leaseLost(RedlockLease lease, String reason) {
    }

}
