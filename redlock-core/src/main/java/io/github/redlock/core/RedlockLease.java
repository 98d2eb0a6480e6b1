package io.github.redlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A held Redlock: the key, the token stored under it on a quorum of nodes, and the validity deadline
 * (measured with a monotonic clock) until which the holder may rely on being the only one (or, for a
 * read lock, on no writer holding it). Release it with {@link #release()} or try-with-resources;
 * {@link #extend(Duration)} renews it, {@link #autoExtend(Duration)} keeps renewing it while work of unknown
 * length runs, and {@link #lost()} tells when it was lost before its release.
 *
 * <pre>{@code
 * try (RedlockLease lease = redlock.acquire("order:42", Duration.ofSeconds(10), Duration.ofSeconds(2))) {
 *     // only one holder at a time, while lease.isValid()
 * }
 * }</pre>
 *
 * Thread-safe. Whenever {@link #isValid()} is true, a quorum of nodes holds the lease's token for at least
 * {@link #remainingValidity()}. Leases are granted by a {@link Redlock} only: code may hold and pass them, not implement
 * this interface (a {@code Redlock} refuses a lease it did not grant).
 */
public interface RedlockLease extends AutoCloseable {

    /**
     * Returns the key as the caller gave it; the Redis key is the configured prefix followed by it. For a lock
     * on several keys: the keys (see {@link #keys()}) joined by commas.
     * @return the key
     */
    String key();

    /**
     * Returns the keys the lease holds, as the caller gave them: the one key, or the keys of a lock on several
     * keys ({@link Redlock#tryAcquire(List, Duration, Duration)}), without duplicates, sorted.
     * @return the keys, unmodifiable
     */
    List<String> keys();

    /**
     * Returns the token stored as the key's value on the nodes: 128 random bits, 22 characters.
     * @return the token
     */
    String token();

    /**
     * Returns the lease's fencing token: strictly greater than the token of every acquisition of the same key
     * that returned before this one began (on any client of the same nodes and key prefix), with no clock
     * assumption, also after a lease expired unreleased and after a minority of nodes restarted empty; beyond that
     * (every node restarted empty), as long as the nodes' clocks did not go back by more than the time between the
     * two acquisitions. Pass it to the storage the lock protects, and have the storage refuse a write whose token is
     * not above the last one it accepted (e.g. {@code UPDATE ... WHERE fence < ?}): a holder that paused past
     * its lease, while another took the lock and wrote, is then refused. Tokens are shared by all keys, so
     * they also rise across keys; they are not consecutive.
     * @return the token, at least 1
     * @throws IllegalStateException when the {@link Redlock} was built without fencing, or for a read lease
     */
    long fencingToken();

    /**
     * Returns when the lease was acquired, by this host's wall clock (for display; validity is measured with
     * a monotonic clock).
     * @return the acquisition time
     */
    Instant acquiredAt();

    /**
     * Returns how much longer the lease is valid: how long a quorum of nodes is known to keep its key, from
     * their answers to the acquisition and to every extension since, each less the time its command took and
     * the clock drift allowance. Zero once released, lost or expired.
     * @return the remaining validity, never negative
     */
    Duration remainingValidity();

    /**
     * Returns whether the lease is neither released, lost nor expired. While it is, a quorum of nodes holds
     * its token for at least {@link #remainingValidity()}.
     * @return {@code true} while the holder may rely on holding the lock
     */
    boolean isValid();

    /**
     * Makes the key live at least {@code ttl} more on every node that still holds this lease's token; a node
     * never shortens it (asking for less than it has left changes nothing). It succeeds if a quorum of nodes
     * confirmed the key within validity. Whatever the outcome, the validity follows what the nodes answered:
     * raised only as far as a quorum confirmed, and lowered when nodes no longer hold the key. If so many
     * nodes answer that the key is no longer this lease's that no quorum ever can again, the lease is lost. A
     * lease whose validity ran out is lost without sending anything: another client may hold the lock by then,
     * and the extension would only keep this lease's key alive on the nodes where it had not expired yet.
     * @param ttl the time to live to ask for, at least 1 ms
     * @return {@code true} if the lease was extended; {@code false} if it was released, lost or no quorum answered
     * @throws IllegalArgumentException if {@code ttl} is null, below 1 ms or above the lock's {@code maxTtl}
     */
    boolean extend(Duration ttl);

    /**
     * Keeps the lease while its holder works, for work of unknown length: on the lock's shared timer (no
     * thread per lease), the lease is extended by its ttl each time half of the ttl remains, never past
     * {@code maxHold} after the acquisition; from then on it runs out. An extension that would gain less than
     * a quarter of the ttl before {@code maxHold} is not sent, so a lease is extended at most about
     * {@code maxHold / (ttl / 2) + 1} times when the nodes answer. An extension that fails is retried while
     * a quarter of the ttl remains. If none succeeds, or a majority of nodes say the key is no longer this
     * lease's, the lease is lost: {@link #isValid()} turns false, {@link #lost()} completes, and an error is
     * logged. Release stops the extension, as does closing the {@link Redlock}. Called again on a lease that is
     * extended automatically, it moves the end later (a {@code maxHold} that ends sooner changes nothing).
     * @param maxHold how long after the acquisition the extension stops, positive
     * @return this lease
     * @throws IllegalArgumentException if {@code maxHold} is null, zero or negative
     * @throws IllegalStateException if the lease was released
     */
    RedlockLease autoExtend(Duration maxHold);

    /**
     * Returns a future that completes when the lease is lost before its release: an extension was refused by
     * a majority of nodes, an automatic extension failed, the validity ran out while the lease was held (also
     * after {@code maxHold}), or its {@link Redlock} was closed. It never completes once the lease was
     * released first. The first call on a lease that is not extended
     * automatically arms a timer at the end of its validity.
     * @return a future of the loss, one per call (completing it does not affect the lease)
     */
    CompletableFuture<Void> lost();

    /**
     * Returns why the lease was lost, if it was.
     * @return the reason, or empty while the lease was not lost
     */
    Optional<String> lostReason();

    /**
     * Deletes the key on every node where it still holds this lease's token, never another holder's.
     * Idempotent: later calls return the first call's result without sending anything.
     * @return {@code true} if a quorum still held the lock, {@code false} if it had expired or been taken
     */
    boolean release();

    /**
     * Releases the lease without blocking, as {@link #release()} does; for code that must not wait, such
     * as a callback on an asynchronous result. Idempotent: later calls return the same future.
     * @return a future of whether a quorum still held the lock; never completed exceptionally
     */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Ends the lease but leaves the lock taken for {@code delay} more: on every node that still holds this
     * lease's token the key is left to expire in at most {@code delay} (never later than it would have), under a
     * value no lease has (so that no extension of this lease arriving later lengthens it), so that nobody takes
     * the lock before then, also when this process stops meanwhile. For work that must not
     * run again too soon after it ended (a scheduled job's minimum spacing, as ShedLock's
     * {@code lockAtLeastFor}). Stops automatic extension; waiters find the lock free when they next try. A key
     * never outlives what the nodes hold already: to keep it longer, {@link #extend(Duration)} it first.
     * Idempotent together with {@link #release()}: only the first of them is sent.
     * @param delay how long the lock stays taken, zero or more; zero is {@link #release()}
     * @return {@code true} if a quorum still held the lock, {@code false} if it had expired or been taken
     * @throws IllegalArgumentException if {@code delay} is null or negative
     * @throws UnsupportedOperationException if this is a read or write lease (their queues are released at once)
     */
    boolean releaseAfter(Duration delay);

    /**
     * Releases the lease, as {@link #release()} does; never throws.
     */
    @Override
    void close();

}
