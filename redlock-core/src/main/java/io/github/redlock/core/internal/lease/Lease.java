package io.github.redlock.core.internal.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.support.Durations;
import io.github.redlock.core.internal.support.Futures;
import org.jspecify.annotations.Nullable;

/**
 * The one implementation of {@link RedlockLease}: what a grant of the engine returns. Beyond the public API it gives the
 * internal packages the lease's state on the nodes ({@link #handle()}) and lets them end it ({@link #redlockClosed()},
 * {@link #revoked(String)}). Thread-safe. The release, extension and loss paths race each other and are kept together
 * here; the lease's state on the nodes is its {@link LeaseHandle}, its automatic extension a {@link LeaseWatch}.
 */
public final class Lease implements RedlockLease {

    private static final System.Logger logger = System.getLogger(RedlockLease.class.getName());

    /** Why a lease asked to extend after its validity ran out is lost. */
    private static final String EXPIRED_BEFORE_EXTENSION = "its validity ran out before it was extended: another client may "
            + "hold the lock, so the extension was not sent";

    private static final VarHandle LOST;

    private static final VarHandle LOST_BECAUSE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LOST = lookup.findVarHandle(Lease.class, "lost", CompletableFuture.class);
            LOST_BECAUSE = lookup.findVarHandle(Lease.class, "lostBecause", String.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
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

    /**
     * A lease of a grant.
     * @param operations what extends and releases it, with the lock's settings
     * @param handle its state on the nodes
     * @param key the key as the caller gave it (a lock on several keys: them, joined by commas)
     * @param token the token stored under it on the nodes
     */
    public Lease(LeaseOperations operations, LeaseHandle handle, String key, String token) {
        this.operations = operations;
        this.handle = handle;
        this.key = key;
        this.token = token;
        this.watch = new LeaseWatch(handle, operations, new LeaseWatch.Holder() {

            @Override
            public boolean ended() {
                return Lease.this.ended();
            }

            @Override
            public void lost(String reason) {
                markLost(reason);
            }

        });
    }

    @Override
    public String key() {
        return this.key;
    }

    @Override
    public java.util.List<String> keys() {
        java.util.List<String> names = this.handle.keys().names();
        return (names != null) ? names : java.util.List.of(this.key);
    }

    @Override
    public String token() {
        return this.token;
    }

    @Override
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

    @Override
    public Instant acquiredAt() {
        return this.acquiredAt;
    }

    @Override
    public Duration remainingValidity() {
        if (released() || this.lostBecause != null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, this.handle.validLeft(System.nanoTime())));
    }

    @Override
    public boolean isValid() {
        return !released() && this.lostBecause == null && this.handle.validLeft(System.nanoTime()) > 0;
    }

    @Override
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

    @Override
    public Lease autoExtend(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero()) {
            throw new RedlockArgumentException("maxHold", "maxHold must be positive (e.g. 10m), was " + maxHold);
        }
        if (released()) {
            throw new IllegalStateException("The lease of '" + this.key + "' was released: there is nothing to extend");
        }
        this.watch.extendUntil(maxHold);
        return this;
    }

    @Override
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

    @Override
    public Optional<String> lostReason() {
        return Optional.ofNullable(this.lostBecause);
    }

    @Override
    public boolean release() {
        // A copy, so that giving up on it (interrupt) never cancels the shared release.
        return Futures.await(releaseAsync().copy(), this.operations.callBoundNanos(), () -> false);
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return releaseAsync(0);
    }

    @Override
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

    /**
     * Returns the lease as this implementation, which every lease a {@code Redlock} grants is.
     * @param lease a lease of a {@code Redlock}
     * @return the same lease
     * @throws IllegalArgumentException for another implementation of {@link RedlockLease}
     */
    public static Lease of(RedlockLease lease) {
        if (lease instanceof Lease own) {
            return own;
        }
        throw new IllegalArgumentException("Not a lease granted by a Redlock: " + lease.getClass().getName());
    }

    /**
     * Returns the lease's state on the nodes.
     * @return its handle
     */
    public LeaseHandle handle() {
        return this.handle;
    }

    /**
     * Ends the lease as lost when it was revoked through its own instance: the nodes no longer hold it.
     * @param reason why, for {@link #lostReason()}
     */
    public void revoked(String reason) {
        this.watch.stop();
        markLost(reason);
    }

    /** Its {@code Redlock} was closed while this lease was held: nothing extends or watches it any more. */
    public void redlockClosed() {
        this.watch.stop();
        markLost("its Redlock was closed while it was held: nothing extends it any more, and its keys expire with their ttl");
    }

    private boolean released() {
        return this.release.get() != null;
    }

    /**
     * Returns whether the lease was released (or its release began) or lost.
     * @return {@code true} once it ended
     */
    public boolean ended() {
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
