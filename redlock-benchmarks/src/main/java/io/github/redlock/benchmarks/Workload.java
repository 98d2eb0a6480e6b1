package io.github.redlock.benchmarks;

/**
 * One kind of lock operation that {@link CommandCosts} measures, run a given number of times: e.g. an exclusive
 * lock and its release, or one extension of a held lease. {@link Workloads} makes them.
 */
interface Workload extends AutoCloseable {

    /**
     * Returns the operation's name in the table, e.g. {@code exclusive}.
     * @return a short name
     */
    String name();

    /**
     * Returns what one operation calls, e.g. {@code tryAcquire(key, ttl) + release()}.
     * @return the calls of the public API, for the table
     */
    String calls();

    /**
     * Runs the operation {@code operations} times, on fresh or rotating keys, and waits until every one has ended.
     * @param operations how many
     * @return how many succeeded (the lock was granted, or the lease extended)
     * @throws InterruptedException when interrupted
     */
    int run(int operations) throws InterruptedException;

    /** Releases what the workload holds between runs, if anything. */
    @Override
    default void close() {
    }

    /** A piece of work that may be interrupted: the operations of a monitored pass. */
    @FunctionalInterface
    interface Pass {

        /**
         * Runs it.
         * @throws InterruptedException when interrupted
         */
        void run() throws InterruptedException;

    }

}
