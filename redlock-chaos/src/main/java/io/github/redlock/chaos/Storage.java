package io.github.redlock.chaos;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The storage that lock holders write to, apart from the lock's nodes: a PostgreSQL table ({@link PostgresStorage}), or,
 * on a machine without PostgreSQL, a {@code redis-server} ({@link RedisStorage}). Every write is numbered in the
 * storage's own order, and the number is logged with the write; a write that carries a fencing token is accepted only if
 * no later holder's token was accepted for its lock before it (the storage's fence), unless the run turned that check
 * off for its control. A write without a token (-1) is accepted unchecked: that is the control that shows what the
 * fence prevents. One instance per client process, shared by its threads.
 */
interface Storage extends AutoCloseable {

    /**
     * Opens the storage at {@code uri}: a {@code jdbc:postgresql:} URL or a {@code redis://} URI, as {@link StorageServer}
     * gives it.
     * @param uri where the storage is
     * @param fence whether writes with a fencing token are checked against the lock's fence ({@code false}: the control,
     * in which they are accepted unchecked like writes without one)
     * @param connections how many connections the process keeps (one per thread that writes)
     * @return the storage, ready for writes
     */
    static Storage open(String uri, boolean fence, int connections) {
        return uri.startsWith("jdbc:") ? new PostgresStorage(uri, fence, connections) : new RedisStorage(uri, fence);
    }

    /**
     * Writes on behalf of a lock holder, in one transaction of the storage.
     * @param lockKey the lock the holder holds ({@code f:3}, {@code x:1}, ...)
     * @param leaseToken the holder's lease token
     * @param fencingToken the holder's fencing token, or -1 when it has none
     * @return the storage's number of the write, and whether it was accepted
     */
    Outcome write(String lockKey, String leaseToken, long fencingToken);

    /** Writes the storage's log of writes, in its order, as {@code storage.tsv} lines ({@link History.StoredWrite}). */
    void dump(Path file) throws IOException;

    @Override
    void close();

    /**
     * A write as the storage answered it.
     * @param seq the write's number in the storage's order: of two accepted writes to one lock, the one committed later has
     * the larger number
     * @param accepted whether it was written (else its fencing token was below the lock's fence)
     */
    record Outcome(long seq, boolean accepted) {
    }

}
