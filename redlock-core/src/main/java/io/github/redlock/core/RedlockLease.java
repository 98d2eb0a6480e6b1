package io.github.redlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A held Redlock: the key, the token stored under it on a quorum of nodes, and the validity deadline
 * (measured with a monotonic clock) until which the holder may rely on being the only one. Release it
 * with {@link #release()} or try-with-resources; {@link #extend(Duration)} renews it.
 *
 * <pre>{@code
 * try (RedlockLease lease = redlock.acquire("order:42", Duration.ofSeconds(10), Duration.ofSeconds(2))) {
 *     // only one holder at a time, while lease.isValid()
 * }
 * }</pre>
 *
 * Thread-safe.
 */
public final class RedlockLease implements AutoCloseable {

    private final LockEngine engine;

    private final String key;

    private final byte[] redisKey;

    private final String token;

    private final byte[] tokenBytes;

    /** The acquisition's node replies: follow-ups skip nodes that never received the SET. */
    private final QuorumCall acquisition;

    private final AtomicReference<CompletableFuture<Boolean>> release = new AtomicReference<>();

    private final Instant acquiredAt = Instant.now();

    private volatile long validUntilNanos;

    RedlockLease(LockEngine engine, String key, byte[] redisKey, String token, byte[] tokenBytes, QuorumCall acquisition,
            long validUntilNanos) {
        this.engine = engine;
        this.key = key;
        this.redisKey = redisKey;
        this.token = token;
        this.tokenBytes = tokenBytes;
        this.acquisition = acquisition;
        this.validUntilNanos = validUntilNanos;
    }

    /**
     * Returns the key as the caller gave it; the Redis key is the configured prefix followed by it.
     * @return the key
     */
    public String key() {
        return this.key;
    }

    /**
     * Returns the token stored as the key's value on the nodes: 128 random bits, 22 characters.
     * @return the token
     */
    public String token() {
        return this.token;
    }

    /**
     * Returns when the lease was acquired, by this host's wall clock (for display; validity is measured with
     * a monotonic clock).
     * @return the acquisition time
     */
    public Instant acquiredAt() {
        return this.acquiredAt;
    }

    /**
     * Returns how much longer the lease is valid: the ttl minus the time the acquisition (or the last
     * extension) took, minus the clock drift allowance, minus the time since. Zero once released or expired.
     * @return the remaining validity, never negative
     */
    public Duration remainingValidity() {
        if (this.release.get() != null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, this.validUntilNanos - System.nanoTime()));
    }

    /**
     * Returns whether the lease is neither released nor expired.
     * @return {@code true} while the holder may rely on holding the lock
     */
    public boolean isValid() {
        return this.release.get() == null && this.validUntilNanos - System.nanoTime() > 0;
    }

    /**
     * Sets the key's time to live to {@code ttl} on every node that still holds this lease's token. It
     * succeeds only if a quorum did so within validity, and the validity is then renewed as at acquisition.
     * @param ttl the new time to live, at least 1 ms
     * @return {@code true} if the lease was extended; {@code false} if it was released, lost or no quorum answered
     * @throws IllegalArgumentException if {@code ttl} is null or below 1 ms
     */
    public boolean extend(Duration ttl) {
        long ttlMillis = Redlock.ttlMillis(ttl);
        if (this.release.get() != null) {
            return false;
        }
        long validUntil = LockEngine.await(this.engine.extend(this.redisKey, this.tokenBytes, ttlMillis, this.acquisition),
                this.engine.callBoundNanos(), () -> LockEngine.NOT_EXTENDED);
        if (validUntil == LockEngine.NOT_EXTENDED) {
            return false;
        }
        this.validUntilNanos = validUntil;
        return true;
    }

    /**
     * Deletes the key on every node where it still holds this lease's token, never another holder's.
     * Idempotent: later calls return the first call's result without sending anything.
     * @return {@code true} if a quorum still held the lock, {@code false} if it had expired or been taken
     */
    public boolean release() {
        // A copy, so that giving up on it (interrupt) never cancels the shared release.
        return LockEngine.await(releaseAsync().copy(), this.engine.callBoundNanos(), () -> false);
    }

    /**
     * Releases the lease without blocking, as {@link #release()} does; for code that must not wait, such
     * as a callback on an asynchronous result. Idempotent: later calls return the same future.
     * @return a future of whether a quorum still held the lock; never completed exceptionally
     */
    public CompletableFuture<Boolean> releaseAsync() {
        CompletableFuture<Boolean> existing = this.release.get();
        if (existing != null) {
            return existing;
        }
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        if (!this.release.compareAndSet(null, mine)) {
            return this.release.get();
        }
        this.engine.release(this, this.redisKey, this.tokenBytes, this.acquisition).whenComplete((released, failure) -> {
            if (failure != null) {
                mine.complete(false);
            }
            else {
                mine.complete(released);
            }
        });
        return mine;
    }

    /**
     * Releases the lease, as {@link #release()} does; never throws.
     */
    @Override
    public void close() {
        try {
            release();
        }
        catch (RuntimeException ex) {
            // close() must not mask the exception of the block it ends; the key expires with its ttl.
        }
    }

    @Override
    public String toString() {
        return "RedlockLease[key=" + this.key + ", remainingValidity=" + remainingValidity() + "]";
    }

}
