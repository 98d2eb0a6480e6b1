package io.github.redlock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.core.internal.lease.ExtendOutcome;
import io.github.redlock.core.internal.lease.Extension;
import io.github.redlock.core.internal.lease.LeaseAccess;
import io.github.redlock.core.internal.lease.LeaseHandle;
import io.github.redlock.core.internal.lease.LeaseOperations;
import io.github.redlock.core.internal.lease.LeaseWatch;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.support.Durations;
import io.github.redlock.core.internal.support.Futures;
import org.jspecify.annotations.Nullable;

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
 * {@link #remainingValidity()}. (The release, extension and loss paths race each other and are kept together here;
 * the lease's state on the nodes is an internal {@code LeaseHandle}, its automatic extension a {@code LeaseWatch}.)
 */
public final class RedlockLease implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(RedlockLease.class.getName());

    /** Why a lease asked to extend after its validity ran out is lost. */
    private static final String EXPIRED_BEFORE_EXTENSION = "its validity ran out before it was extended: another client may "
            + "hold the lock, so the extension was not sent";

    private static final VarHandle LOST;

    private static final VarHandle LOST_BECAUSE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LOST = lookup.findVarHandle(RedlockLease.class, "lost", CompletableFuture.class);
            LOST_BECAUSE = lookup.findVarHandle(RedlockLease.class, "lostBecause", String.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
        LeaseAccess.register(new LeaseAccess() {

            @Override
            public RedlockLease create(LeaseOperations operations, LeaseHandle handle, String key, String token) {
                return new RedlockLease(operations, handle, key, token);
            }

            @Override
            public LeaseHandle handle(RedlockLease lease) {
                return lease.handle;
            }

            @Override
            public void closed(RedlockLease lease) {
                lease.closed();
            }

            @Override
            public boolean ended(RedlockLease lease) {
                return lease.ended();
            }

            @Override
            public void revoked(RedlockLease lease, String reason) {
                lease.watch.stop();
                lease.markLost(reason);
            }

        });
    }

    private final LeaseOperations operations;

    private final LeaseHandle handle;

    private final String key;

    private final String token;

    private final LeaseWatch watch;

    private final AtomicReference<CompletableFuture<Boolean>> release = new AtomicReference<>();

    private final Instant acquiredAt = Instant.now();

    /** Why the lease was lost before its release, or null. */
    private volatile @Nullable String lostBecause;

    /** Completed when the lease is lost; created on demand by {@link #lost()}. */
    @SuppressWarnings("unused") // through LOST
    private volatile @Nullable CompletableFuture<Void> lost;

    private RedlockLease(LeaseOperations operations, LeaseHandle handle, String key, String token) {
        this.operations = operations;
        this.handle = handle;
        this.key = key;
        this.token = token;
        this.watch = new LeaseWatch(handle, operations, new LeaseWatch.Holder() {

            @Override
            public boolean ended() {
                return RedlockLease.this.ended();
            }

            @Override
            public void lost(String reason) {
                markLost(reason);
            }

        });
    }

    /**
     * Returns the key as the caller gave it; the Redis key is the configured prefix followed by it. For a lock
     * on several keys: the keys (see {@link #keys()}) joined by commas.
     * @return the key
     */
    public String key() {
        return this.key;
    }

    /**
     * Returns the keys the lease holds, as the caller gave them: the one key, or the keys of a lock on several
     * keys ({@link Redlock#tryAcquire(List, Duration, Duration)}), without duplicates, sorted.
     * @return the keys, unmodifiable
     */
    public java.util.List<String> keys() {
        java.util.List<String> names = this.handle.keys().names();
        return (names != null) ? names : java.util.List.of(this.key);
    }

    /**
     * Returns the token stored as the key's value on the nodes: 128 random bits, 22 characters.
     * @return the token
     */
    public String token() {
        return this.token;
    }

    /**
     * Returns the lease's fencing token: strictly greater than the token of every acquisition of the same key
     * that returned before this one began (on any client of the same nodes and key prefix), with no clock
     * assumption. Pass it to the storage the lock protects, and have the storage refuse a write whose token is
     * not above the last one it accepted (e.g. {@code UPDATE ... WHERE fence < ?}): a holder that paused past
     * its lease, while another took the lock and wrote, is then refused. Tokens are shared by all keys, so
     * they also rise across keys; they are not consecutive.
     * @return the token, at least 1
     * @throws IllegalStateException when the {@link Redlock} was built without fencing, or for a read lease
     */
    public long fencingToken() {
        long fencingToken = this.handle.fencingToken();
        if (fencingToken > 0) {
            return fencingToken;
        }
        if (this.handle.type() == LockType.READ) {
            throw new IllegalStateException("A read lease of '" + this.key + "' has no fencing token: readers share the lock, "
                    + "so no token orders them; take a write lock (acquireWrite) for the work that writes to the storage");
        }
        throw new IllegalStateException("The lease of '" + this.key + "' has no fencing token: fencing is off. Build the "
                + "Redlock with Redlock.builder().fencing(true), or set redlock.fencing=true with the starter");
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
        return Duration.ofNanos(Math.max(0, this.handle.validLeft(System.nanoTime())));
    }

    /**
     * Returns whether the lease is neither released, lost nor expired. While it is, a quorum of nodes holds
     * its token for at least {@link #remainingValidity()}.
     * @return {@code true} while the holder may rely on holding the lock
     */
    public boolean isValid() {
        return !released() && this.lostBecause == null && this.handle.validLeft(System.nanoTime()) > 0;
    }

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
    public boolean extend(Duration ttl) {
        long ttlMillis = Durations.ttlMillis(ttl, this.operations.maxTtlMillis());
        if (released() || this.lostBecause != null) {
            return false;
        }
        if (this.handle.validLeft(System.nanoTime()) <= 0) {
            // Past its validity another client may hold a quorum already: an extension would only keep this
            // lease's key alive on the minority of nodes where it has not expired yet, blocking them for the ttl.
            markLost(EXPIRED_BEFORE_EXTENSION);
            return false;
        }
        ExtendOutcome outcome = Futures.await(this.operations.extend(this.handle, ttlMillis, Extension.REQUESTED), this.operations.callBoundNanos(),
                () -> ExtendOutcome.NOT_EXTENDED);
        if (outcome == ExtendOutcome.REFUSED) {
            markLost(LeaseWatch.MAJORITY_GONE);
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
     * logged. Release stops the extension, as does closing the {@link Redlock}. Called again on a lease that is
     * extended automatically, it moves the end later (a {@code maxHold} that ends sooner changes nothing).
     * @param maxHold how long after the acquisition the extension stops, positive
     * @return this lease
     * @throws IllegalArgumentException if {@code maxHold} is null, zero or negative
     * @throws IllegalStateException if the lease was released
     */
    public RedlockLease autoExtend(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero()) {
            throw new RedlockArgumentException("maxHold", "maxHold must be positive (e.g. 10m), was " + maxHold);
        }
        if (released()) {
            throw new IllegalStateException("The lease of '" + this.key + "' was released: there is nothing to extend");
        }
        this.watch.extendUntil(maxHold);
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
                else {
                    this.watch.watchValidity();
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
        return Futures.await(releaseAsync().copy(), this.operations.callBoundNanos(), () -> false);
    }

    /**
     * Releases the lease without blocking, as {@link #release()} does; for code that must not wait, such
     * as a callback on an asynchronous result. Idempotent: later calls return the same future.
     * @return a future of whether a quorum still held the lock; never completed exceptionally
     */
    public CompletableFuture<Boolean> releaseAsync() {
        return releaseAsync(0);
    }

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
    public boolean releaseAfter(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new RedlockArgumentException("delay", "delay must be zero or more (e.g. 30s), was " + delay);
        }
        LockType type = this.handle.type();
        if (type == LockType.READ || type == LockType.WRITE) {
            throw new UnsupportedOperationException("A " + type.name().toLowerCase(Locale.ROOT) + " lease of '" + this.key
                    + "' cannot be released later: release() it, or use an exclusive lock");
        }
        long keepMillis = Durations.saturatedNanos(delay) / 1_000_000L;
        if (keepMillis == 0 && !delay.isZero()) {
            keepMillis = 1; // below a millisecond: the shortest a node keeps a key
        }
        return Futures.await(releaseAsync(keepMillis).copy(), this.operations.callBoundNanos(), () -> false);
    }

    private CompletableFuture<Boolean> releaseAsync(long keepMillis) {
        CompletableFuture<Boolean> existing = this.release.get();
        if (existing != null) {
            return existing;
        }
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        if (!this.release.compareAndSet(null, mine)) {
            return Objects.requireNonNull(this.release.get()); // set once, never cleared
        }
        this.watch.stop();
        try {
            CompletableFuture<Boolean> sent = (keepMillis > 0) ? this.operations.releaseLater(this.handle, keepMillis)
                    : this.operations.release(this.handle);
            sent.whenComplete((released, failure) -> mine.complete(failure == null && released));
        }
        catch (RuntimeException ex) {
            mine.complete(false); // e.g. its Redlock was closed: the keys expire with their ttl
        }
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
        LockType type = this.handle.type();
        return "RedlockLease[key=" + this.key + ((type != LockType.EXCLUSIVE) ? ", " + type.name().toLowerCase(Locale.ROOT) : "")
                + ", remainingValidity=" + remainingValidity() + "]";
    }

    /** Its {@link Redlock} was closed while this lease was held: nothing extends or watches it any more. */
    private void closed() {
        this.watch.stop();
        markLost("its Redlock was closed while it was held: nothing extends it any more, and its keys expire with their ttl");
    }

    private boolean released() {
        return this.release.get() != null;
    }

    /** Whether the lease was released (or its release began) or lost. */
    private boolean ended() {
        return released() || this.lostBecause != null;
    }

    private void markLost(String reason) {
        if (released() || !LOST_BECAUSE.compareAndSet(this, null, reason)) {
            return; // released first, or lost already: reported once
        }
        LockType type = this.handle.type();
        logger.log(System.Logger.Level.ERROR, "Lost the " + ((type == LockType.EXCLUSIVE) ? "" : type.name().toLowerCase(Locale.ROOT) + " ")
                + "lock '" + this.key + "': " + reason + ". Another client may hold it now; stop the work it protects.");
        CompletableFuture<Void> signal = this.lost;
        if (signal != null) {
            signal.complete(null);
        }
        RedlockObserver observer = this.operations.observer();
        if (observer != null) {
            observer.leaseLost(this, reason);
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Void> castVoid(CompletableFuture<?> future) {
        return (CompletableFuture<Void>) future;
    }

}
