package io.github.redlock.core;

import java.time.Duration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.util.Timeout;

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
 * Thread-safe.
 */
public final class RedlockLease implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(RedlockLease.class.getName());

    private static final String MAJORITY_GONE = "a majority of nodes no longer hold its token (expired or taken), so it could not be extended";

    private static final VarHandle LOST;

    private static final VarHandle HOLD_DEADLINE;

    private static final VarHandle WATCH;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LOST = lookup.findVarHandle(RedlockLease.class, "lost", CompletableFuture.class);
            HOLD_DEADLINE = lookup.findVarHandle(RedlockLease.class, "holdDeadlineNanos", long.class);
            WATCH = lookup.findVarHandle(RedlockLease.class, "watch", Timeout.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final LockEngine engine;

    private final LockType type;

    private final String key;

    private final LockType.Keys keys;

    private final String token;

    private final byte[] tokenBytes;

    /** The acquisition's node replies: follow-ups skip nodes that never received the SET. */
    private final QuorumCall acquisition;

    private final AtomicReference<CompletableFuture<Boolean>> release = new AtomicReference<>();

    private final Instant acquiredAt = Instant.now();

    private final long ttlMillis;

    /** Per node, until when it is known to hold the key: the lease's validity is derived from it, never cached. */
    private final NodeExpiries expiries;

    /** The longest time to live this lease asked any node for: how long a release stays worth sending. */
    private volatile long longestTtlMillis;

    /** Whether the automatic extension reached {@code maxHold}: no further extension would add anything. */
    private volatile boolean holdReached;

    /** Why the lease was lost before its release, or null. */
    private volatile String lostBecause;

    /** Completed when the lease is lost; created on demand by {@link #lost()}. */
    @SuppressWarnings("unused") // through LOST
    private volatile CompletableFuture<Void> lost;

    /** When auto-extension stops ({@link System#nanoTime()} based), or 0 when it is off. */
    @SuppressWarnings("unused") // through HOLD_DEADLINE
    private volatile long holdDeadlineNanos;

    private volatile Duration maxHold;

    /** The timer task of the next extension or validity check, or null. */
    private volatile Timeout watch;

    RedlockLease(LockEngine engine, LockType type, String key, LockType.Keys keys, String token, byte[] tokenBytes,
            QuorumCall acquisition, long ttlMillis, NodeExpiries expiries) {
        this.engine = engine;
        this.type = type;
        this.key = key;
        this.keys = keys;
        this.token = token;
        this.tokenBytes = tokenBytes;
        this.acquisition = acquisition;
        this.ttlMillis = ttlMillis;
        this.longestTtlMillis = ttlMillis;
        this.expiries = expiries;
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
     * Returns how much longer the lease is valid: how long a quorum of nodes is known to keep its key, from
     * their answers to the acquisition and to every extension since, each less the time its command took and
     * the clock drift allowance. Zero once released, lost or expired.
     * @return the remaining validity, never negative
     */
    public Duration remainingValidity() {
        if (released() || this.lostBecause != null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, validLeft(System.nanoTime())));
    }

    /**
     * Returns whether the lease is neither released, lost nor expired. While it is, a quorum of nodes holds
     * its token for at least {@link #remainingValidity()}.
     * @return {@code true} while the holder may rely on holding the lock
     */
    public boolean isValid() {
        return !released() && this.lostBecause == null && validLeft(System.nanoTime()) > 0;
    }

    /**
     * Makes the key live at least {@code ttl} more on every node that still holds this lease's token; a node
     * never shortens it (asking for less than it has left changes nothing). It succeeds if a quorum of nodes
     * confirmed the key within validity. Whatever the outcome, the validity follows what the nodes answered:
     * raised only as far as a quorum confirmed, and lowered when nodes no longer hold the key. If so many
     * nodes answer that the key is no longer this lease's that no quorum ever can again, the lease is lost.
     * @param ttl the time to live to ask for, at least 1 ms
     * @return {@code true} if the lease was extended; {@code false} if it was released, lost or no quorum answered
     * @throws IllegalArgumentException if {@code ttl} is null or below 1 ms
     */
    public boolean extend(Duration ttl) {
        long ttlMillis = Redlock.ttlMillis(ttl);
        if (released() || this.lostBecause != null) {
            return false;
        }
        if (ttlMillis > this.longestTtlMillis) {
            this.longestTtlMillis = ttlMillis; // racing raises may keep the smaller: a release is then given up sooner
        }
        ExtendOutcome outcome = LockEngine.await(this.engine.extend(this, ttlMillis), this.engine.callBoundNanos(),
                () -> ExtendOutcome.NOT_EXTENDED);
        if (outcome == ExtendOutcome.REFUSED) {
            markLost(MAJORITY_GONE);
        }
        return outcome == ExtendOutcome.EXTENDED && this.lostBecause == null && !released();
    }

    /**
     * Keeps the lease while its holder works, for work of unknown length: on the lock's shared timer (no
     * thread per lease), the lease is extended by its ttl each time half of the ttl remains, never past
     * {@code maxHold} after the acquisition; from then on it runs out. An extension that would gain less than
     * a quarter of the ttl before {@code maxHold} is not sent, so a lease is extended at most about
     * {@code maxHold / (ttl / 2) + 1} times when the nodes answer. An extension that fails is retried while
     * a quarter of the ttl remains. If none succeeds, or a majority of nodes say the key is no longer this
     * lease's, the lease is lost: {@link #isValid()} turns false, {@link #lost()} completes, and an error is
     * logged. Release stops the extension, as does closing the {@link Redlock}.
     * @param maxHold how long after the acquisition the extension stops, positive
     * @return this lease
     * @throws IllegalArgumentException if {@code maxHold} is null, zero or negative
     * @throws IllegalStateException if the lease was released, or is extended automatically already
     */
    public RedlockLease autoExtend(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero()) {
            throw new IllegalArgumentException("maxHold must be positive (e.g. 10m), was " + maxHold);
        }
        if (this.release.get() != null) {
            throw new IllegalStateException("The lease of '" + this.key + "' was released: there is nothing to extend");
        }
        long deadline = this.acquisition.startNanos() + Redlock.saturatedNanos(maxHold);
        if (deadline == 0) {
            deadline = 1; // 0 means "off"
        }
        if (!HOLD_DEADLINE.compareAndSet(this, 0L, deadline)) {
            throw new IllegalStateException("The lease of '" + this.key + "' is extended automatically already");
        }
        this.maxHold = maxHold;
        watchIn(nextExtensionDelay());
        return this;
    }

    /**
     * Returns a future that completes when the lease is lost before its release: an extension was refused by
     * a majority of nodes, an automatic extension failed, the validity ran out while the lease was held (also
     * after {@code maxHold}), or its {@link Redlock} was closed. It never completes once the lease was
     * released first. The first call on a lease that is not extended
     * automatically arms a timer at the end of its validity.
     * @return a future of the loss, one per call (completing it does not affect the lease)
     */
    public CompletableFuture<Void> lost() {
        CompletableFuture<Void> signal = this.lost;
        if (signal == null) {
            CompletableFuture<Void> created = new CompletableFuture<>();
            signal = LOST.compareAndExchange(this, null, created) instanceof CompletableFuture<?> existing
                    ? castVoid(existing) : created;
            if (signal == created) {
                if (this.lostBecause != null) {
                    created.complete(null);
                }
                else if (this.holdDeadlineNanos == 0) {
                    watchIn(validLeft(System.nanoTime()));
                }
            }
        }
        return signal.copy();
    }

    /**
     * Returns why the lease was lost, if it was.
     * @return the reason, or empty while the lease was not lost
     */
    public Optional<String> lostReason() {
        return Optional.ofNullable(this.lostBecause);
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
        stopWatching();
        this.engine.release(this).whenComplete((released, failure) -> {
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
        return "RedlockLease[key=" + this.key + ((this.type != LockType.EXCLUSIVE) ? ", " + this.type.name().toLowerCase(Locale.ROOT) : "")
                + ", remainingValidity=" + remainingValidity() + "]";
    }

    LockType type() {
        return this.type;
    }

    LockType.Keys keys() {
        return this.keys;
    }

    byte[] tokenBytes() {
        return this.tokenBytes;
    }

    QuorumCall acquisition() {
        return this.acquisition;
    }

    NodeExpiries expiries() {
        return this.expiries;
    }

    long longestTtlMillis() {
        return this.longestTtlMillis;
    }

    /** The {@link Redlock} was closed while this lease was held: nothing extends or watches it any more. */
    void closed() {
        stopWatching();
        markLost("its Redlock was closed while it was held: nothing extends it any more, and its keys expire with their ttl");
    }

    /** How long a quorum of nodes is known to hold the key after {@code now}; negative when none is. */
    private long validLeft(long now) {
        long until = this.expiries.validUntil(this.engine.quorum());
        return (until == NodeExpiries.UNKNOWN) ? -1 : until - now;
    }

    /** Cancels the pending extension or validity check; a running extension's result is ignored. */
    void stopWatching() {
        Timeout current = this.watch;
        if (current != null) {
            current.cancel();
        }
    }

    private boolean released() {
        return this.release.get() != null;
    }

    private void watchIn(long delayNanos) {
        if (released() || this.lostBecause != null || this.engine.isClosed()) {
            return;
        }
        Timeout previous = (Timeout) WATCH.getAndSet(this, this.engine.schedule((timeout) -> check(), delayNanos));
        if (previous != null) {
            previous.cancel(); // one watch per lease, e.g. when autoExtend follows lost()
        }
        if (released()) {
            stopWatching(); // released meanwhile: no timer survives its lease
        }
    }

    /** When the next extension is due: once half of the ttl remains. */
    private long nextExtensionDelay() {
        return validLeft(System.nanoTime()) - TimeUnit.MILLISECONDS.toNanos(this.ttlMillis) / 2;
    }

    /** On the timer: extends the lease when auto-extension runs, else checks whether validity ran out. */
    private void check() {
        if (released() || this.lostBecause != null) {
            return;
        }
        long now = System.nanoTime();
        long holdDeadline = this.holdDeadlineNanos;
        long validLeft = validLeft(now);
        if (holdDeadline != 0 && validLeft > 0 && !this.holdReached) {
            long ttlNanos = TimeUnit.MILLISECONDS.toNanos(this.ttlMillis);
            long holdLeft = holdDeadline - now;
            if (holdLeft - validLeft > ttlNanos / 4) {
                long ttl = Math.min(this.ttlMillis, TimeUnit.NANOSECONDS.toMillis(holdLeft));
                this.engine.extend(this, ttl).whenComplete((outcome, failure) -> afterExtension(
                        (failure != null) ? ExtendOutcome.NOT_EXTENDED : outcome));
                return;
            }
            this.holdReached = true; // the keys live (almost) until maxHold: nothing left worth extending
        }
        if (validLeft > 0) {
            watchIn(validLeft); // extended by hand meanwhile, or at maxHold: check again when it runs out
            return;
        }
        markLost(this.holdReached ? "its validity ran out after the maximum hold of " + this.maxHold
                : "its validity ran out before it was released (ttl " + this.ttlMillis + " ms)");
    }

    private void afterExtension(ExtendOutcome outcome) {
        if (released()) {
            return;
        }
        if (outcome == ExtendOutcome.EXTENDED) {
            watchIn(nextExtensionDelay());
            return;
        }
        long validLeft = validLeft(System.nanoTime());
        long quarter = TimeUnit.MILLISECONDS.toNanos(this.ttlMillis) / 4;
        if (outcome == ExtendOutcome.REFUSED) {
            markLost(MAJORITY_GONE);
        }
        else if (validLeft > quarter) {
            watchIn((validLeft - quarter) / 2); // no quorum in time: try again while a quarter remains
        }
        else {
            markLost("no quorum of nodes extended it in time");
        }
    }

    private void markLost(String reason) {
        if (released() || this.lostBecause != null) {
            return;
        }
        this.lostBecause = reason;
        logger.log(System.Logger.Level.ERROR, "Lost the " + ((this.type == LockType.EXCLUSIVE) ? "" : this.type.name().toLowerCase(Locale.ROOT) + " ")
                + "lock '" + this.key + "': " + reason + ". Another client may hold it now; stop the work it protects.");
        CompletableFuture<Void> signal = this.lost;
        if (signal != null) {
            signal.complete(null);
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Void> castVoid(CompletableFuture<?> future) {
        return (CompletableFuture<Void>) future;
    }


}
