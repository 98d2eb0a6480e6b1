package io.github.redlock.core.internal.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.Lease;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.support.InFlight;
import org.jspecify.annotations.Nullable;

/**
 * The retry loop of one acquisition. Between attempts it waits; a release ({@link #wake(ByteBuffer, boolean)}) or the
 * end of the delay, whichever comes first, starts the next attempt, once. An attempt after the first is
 * never started on an I/O thread (it runs on the JDK's delay scheduler or the common pool): a read or write
 * lock's next attempt, with the same token, must reach each node after the previous attempt's clean-up,
 * and an I/O thread would write it to its own connections ahead of the clean-up queued there.
 * The handshake between a wake, a handoff and an attempt under way ({@code phase}, {@code wakes}) is kept in this one
 * class: it only reads correctly in one place.
 */
public final class Retries implements Runnable {

    /** What the retry loop needs of the engine: one attempt, and a few facts. */
    interface Attempts {

        /** A fresh token of this lock's holder ({@code <instance-id>:<random>}). */
        default String newToken() {
            return Tokens.newToken();
        }

        /** One attempt (see {@code LockEngine}). */
        CompletableFuture<Attempt> attempt(LockType type, String key, LockType.Keys keys, long ttlMillis, long deadlineNanos,
                boolean waiting, @Nullable String acquisitionToken);

        /** Whether the lock was closed. */
        boolean isClosed();

        /** Listens for the lock's releases. */
        ReleaseMessages.Subscription listen(byte[][] channels, ReleaseMessages.Waiter waiter);

        /** Keeps the lock's close waiting until {@code work} completes (see {@code InFlight}). */
        <T> CompletableFuture<T> track(CompletableFuture<T> work);

        /** How many nodes there are. */
        int nodeCount();

        /** How many nodes must agree. */
        int quorum();

        /** The base delay between attempts; each wait is between half and one and a half times it. */
        long retryDelayNanos();

        /**
         * Registers {@code successor} to take the lock over from {@code holder}, a lease of this JVM, when it is
         * released (see {@code LockEngine#handOver}); nothing when the holder's kind of lock cannot be handed over.
         */
        void follow(RedlockLease holder, Retries successor);

        /** Forgets {@code successor}'s registration behind {@code holder}, if it is still there. */
        void unfollow(RedlockLease holder, Retries successor);

    }

    private final Attempts engine;

    /** {@link #phase} while an attempt is under way. */
    private static final int ATTEMPTING = 0;

    /** {@link #phase} while waiting for the next attempt. */
    private static final int WAITING = 1;

    private final LockType type;

    private final String key;

    final LockType.Keys keys;

    private final long ttlMillis;

    private final long deadlineNanos;

    private final boolean waiting;

    private final CompletableFuture<Attempt> result;

    private int attempts;

    /**
     * The read or write lock's token for every attempt (its place in the queue); null for the exclusive lock, on one
     * key or several, which draws one per attempt.
     */
    private final @Nullable String token;

    /** Whether an attempt is under way or the loop waits; only the one who moves it from waiting starts the next. */
    private final AtomicInteger phase = new AtomicInteger(ATTEMPTING);

    /**
     * How many releases woke this caller. An attempt reads it before it is sent: a wake it saw was sent
     * before it (on every connection, as the release's commands precede the wake), one it did not see makes
     * the next attempt go at once.
     */
    private final AtomicLong wakes = new AtomicLong();

    /** Whether the attempts started (or the wait ended before they could). */
    private final AtomicBoolean started = new AtomicBoolean();

    /** How this caller listens for releases; null for a caller that does not wait. */
    private volatile ReleaseMessages.@Nullable Subscription subscription;

    /** The token of the last release in this JVM that woke this caller: the nodes' messages of it are ignored. */
    private volatile @Nullable ByteBuffer lastLocalRelease;

    /**
     * While this caller waits for a local predecessor's lease ({@link #startBehind}): that lease's token; other
     * releases are ignored, as they are older ones (their nodes' messages may still arrive). Null otherwise.
     */
    private volatile @Nullable ByteBuffer awaitedRelease;

    /** What the local line calls when this caller's turn comes; one instance, as the line knows it by identity. */
    final LocalLines.Waiter turn = this::yourTurn;

    Retries(Attempts engine, LockType type, String key, LockType.Keys keys, long ttlMillis, long deadlineNanos, boolean waiting,
            CompletableFuture<Attempt> result) {
        this.engine = engine;
        this.type = type;
        this.key = key;
        this.keys = keys;
        this.ttlMillis = ttlMillis;
        this.deadlineNanos = deadlineNanos;
        this.waiting = waiting;
        this.result = result;
        this.token = type.keepsTokenAcrossAttempts() ? engine.newToken() : null;
    }

    /**
     * Starts the attempts of a caller that waits (once; the wait time may have ended first). It listens for
     * releases in this JVM before its first attempt (so that a release right after its refusal is heard), and
     * on the nodes from its first refusal on ({@link #waitForNext}), so that a caller that gets the lock at
     * once costs no subscription.
     */
    void start() {
        if (this.started.compareAndSet(false, true)) {
            listen();
            run();
        }
    }

    /**
     * The callers before this one in the local line are gone (on a thread that is not an I/O thread): contend
     * now, or, when the one before got the lock, once it is released.
     * @param before the lease the caller before this one obtained, or null
     */
    private void yourTurn(@Nullable RedlockLease before) {
        if (System.nanoTime() - this.deadlineNanos >= 0) {
            outOfTime();
        }
        else if (before != null) {
            startBehind(before);
        }
        else {
            start();
        }
    }

    /**
     * Starts the attempts of a caller behind a lease held in this JVM (its predecessor in the local line got it,
     * or it was held when the caller came first into an empty line): rather than be refused by the nodes while it
     * is held (an attempt, its clean-up and a subscription on every node, for nothing), it waits for the release
     * in this JVM, which wakes it at once (its attempt then follows the release on every connection), or for the
     * end of the holder's validity should it never come (lost, or a holder that hangs), whichever is first. It
     * listens before it looks at the holder, so that a release in between is not missed (a release marks the
     * lease ended before it wakes anyone).
     */
    void startBehind(RedlockLease holder) {
        if (!this.started.compareAndSet(false, true)) {
            return;
        }
        this.awaitedRelease = ByteBuffer.wrap(holder.token().getBytes(StandardCharsets.US_ASCII));
        listen();
        this.phase.set(WAITING);
        // From here the holder's release may hand the lock over to this caller (takeOver, then handedOver);
        // a release that began before, or that finds this caller no longer waiting, wakes it as above.
        this.engine.follow(holder, this);
        this.result.whenComplete((attempt, failure) -> this.engine.unfollow(holder, this));
        long remaining = this.deadlineNanos - System.nanoTime();
        long holderLeft = holder.remainingValidity().toNanos();
        if (Lease.of(holder).ended() || holderLeft <= 0 || remaining <= 0) {
            runIfWaiting();
            return;
        }
        long delay = Math.min(holderLeft + TimeUnit.MILLISECONDS.toNanos(1), remaining);
        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS, Runnable::run).execute(this::runIfWaiting);
    }

    /**
     * The lease this caller waits behind is being released: claims the lock's handoff in its place, unless this
     * caller no longer waits (it gave up, its wait time ended, or the lock was closed) or an attempt of its own
     * is under way (e.g. the holder's validity ended first). On true, the caller's next attempt is the handoff,
     * which the engine sends and then passes to {@link #handedOver}; on false, the release goes as usual and
     * wakes it.
     */
    boolean takeOver() {
        if (this.result.isDone() || this.engine.isClosed() || System.nanoTime() - this.deadlineNanos >= 0) {
            return false;
        }
        return this.phase.compareAndSet(WAITING, ATTEMPTING);
    }

    /**
     * The handoff claimed by {@link #takeOver()} was sent: it is this caller's attempt. A handoff that fails (the
     * releasing lease no longer held a quorum) is followed at once by an ordinary attempt.
     * @param handoff its outcome
     * @param underWay tracked by the engine before the handoff was sent: completed once the outcome is handled
     * @param token the token the handoff gives this caller: the release messages of its clean-up, should it
     * fail, are not a reason to try again (the retry follows the clean-up anyway)
     */
    void handedOver(CompletableFuture<Attempt> handoff, CompletableFuture<Void> underWay, byte[] token) {
        this.lastLocalRelease = ByteBuffer.wrap(token);
        this.awaitedRelease = null; // from now on, every other release may be the one that frees the lock
        this.attempts++;
        long seen = this.wakes.get();
        handoff.whenComplete((attempt, failure) -> InFlight.completing(() -> handle(attempt, failure, seen, true)))
                .whenComplete((ignored, failure) -> underWay.complete(null));
    }

    /** The caller's time to live for its lease, in ms. */
    long ttlMillis() {
        return this.ttlMillis;
    }

    /** When the caller's wait time ends ({@link System#nanoTime()}). */
    long deadlineNanos() {
        return this.deadlineNanos;
    }

    /** The wait time ended while this caller still waited in the local line, without an attempt of its own. */
    void outOfTime() {
        if (this.started.compareAndSet(false, true)) {
            this.result.complete(Attempt.failed(null, "the wait time ended while other callers in this JVM were ahead "
                    + "in line for the lock (one held it or tried for it)", false));
        }
    }

    /**
     * A release of the lock: try again now, or right after the attempt under way. A release in this JVM wakes
     * once; the nodes' messages of the same release are then ignored (the attempt it started was sent after
     * the release on every connection). Each node's message of another client's release wakes, as the other
     * nodes may not have applied it yet when the first message arrives.
     */
    void wake(ByteBuffer released, boolean inOrder) {
        if (released.equals(this.lastLocalRelease)) {
            return; // a node's message of a local release, or the same release of another of a multi-key lock's keys
        }
        ByteBuffer awaited = this.awaitedRelease;
        if (awaited != null && !awaited.equals(released)) {
            return; // a release before the one awaited, e.g. a node's late message of the predecessor's predecessor
        }
        if (inOrder) {
            this.lastLocalRelease = released;
        }
        this.wakes.incrementAndGet();
        runIfWaiting();
    }

    /** Listens for the releases of the lock's keys until the acquisition is decided. */
    private void listen() {
        ReleaseMessages.Subscription listening = this.engine.listen(this.keys.channels(), this::wake);
        this.subscription = listening;
        this.result.whenComplete((attempt, failure) -> listening.close());
    }

    /** Starts the next attempt, unless one is under way already (a wake, a handoff or the delay came first). */
    private void runIfWaiting() {
        if (this.phase.compareAndSet(WAITING, ATTEMPTING)) {
            run();
        }
    }

    @Override
    public void run() {
        this.awaitedRelease = null; // from the first attempt on, every release may be the one that frees the lock
        if (this.result.isDone()) {
            return; // cancelled by the caller
        }
        // Tracked before the closed check: a close either sees this attempt and waits for it, or is seen here.
        CompletableFuture<Void> underWay = this.engine.track(new CompletableFuture<>());
        if (this.engine.isClosed()) {
            InFlight.completing(() -> this.result.completeExceptionally(InFlight.closed()));
            underWay.complete(null);
            return;
        }
        this.attempts++;
        long seen = this.wakes.get(); // before the attempt is sent
        CompletableFuture<Attempt> next;
        try {
            next = this.engine.attempt(this.type, this.key, this.keys, this.ttlMillis, this.deadlineNanos, this.waiting, this.token);
        }
        catch (RuntimeException ex) {
            InFlight.completing(() -> this.result.completeExceptionally(ex)); // e.g. its Redlock was closed meanwhile
            underWay.complete(null);
            return;
        }
        // Under way until the outcome was handled: a lease its caller no longer wants is then being released. The
        // caller's callbacks run in between, on whichever thread decided the attempt (an I/O thread, or this one
        // when no node could be asked): a close they call must not wait for this.
        next.whenComplete((attempt, failure) -> InFlight.completing(() -> handle(attempt, failure, seen, false)))
                .whenComplete((ignored, failure) -> underWay.complete(null));
    }

    /**
     * The outcome of one attempt: the caller's lease or failure, else the wait for the next attempt (none after a
     * failed handoff: the lock was not where the releasing lease thought, so it may well be free now).
     */
    private void handle(Attempt attempt, Throwable failure, long seen, boolean handoff) {
        if (failure != null) {
            this.result.completeExceptionally(failure);
        }
        else if (attempt.lease() != null) {
            if (!this.result.complete(attempt.afterAttempts(this.attempts))) {
                attempt.lease().releaseAsync(); // the caller gave up meanwhile, or the lock was closed
            }
        }
        else if (!attempt.retrying()) {
            // The clean-up decided whether this was the last attempt (a writer then left the queue).
            this.result.complete(attempt.afterAttempts(this.attempts));
        }
        else if (handoff && !this.result.isDone()) {
            // Still attempting (a wake meanwhile changes nothing). Not on this thread, which may be an I/O
            // thread: the handoff's clean-up, queued on its connections, must reach each node first.
            ForkJoinPool.commonPool().execute(this);
        }
        else if (!this.result.isDone()) {
            waitForNext(attempt, seen);
        }
    }

    /** Waits for a release message, the holder's key to expire, or the jittered delay, whichever is first. */
    private void waitForNext(Attempt attempt, long seen) {
        ReleaseMessages.Subscription listening = this.subscription;
        if (listening != null) {
            listening.onNodes();
        }
        long remaining = this.deadlineNanos - System.nanoTime();
        long delay = Math.max(0, Math.min(Math.min(jitteredDelay(), untilQuorumFree(attempt.call(), System.nanoTime())), remaining));
        this.phase.set(WAITING);
        if (this.wakes.get() != seen && this.phase.compareAndSet(WAITING, ATTEMPTING)) {
            // A message came during the attempt. Never from this thread: it may be an I/O thread, whose own
            // connections would get the next attempt ahead of this attempt's clean-up, still queued there.
            ForkJoinPool.commonPool().execute(this);
            return;
        }
        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS, Runnable::run).execute(this::runIfWaiting);
    }

    /**
     * How long after {@code nowNanos} a quorum of nodes is free, by what the refusing nodes said of the holder's key
     * ({@link QuorumCall#untilQuorumFree}); {@code Long.MAX_VALUE} without a call, or for one that did reach a quorum
     * too late: the retry delay decides.
     */
    private long untilQuorumFree(@Nullable QuorumCall call, long nowNanos) {
        int quorum = this.engine.quorum();
        return (call == null || call.granted() >= quorum) ? Long.MAX_VALUE : call.untilQuorumFree(quorum, nowNanos);
    }

    /** A uniformly random delay between half and one and a half times the retry delay. */
    private long jitteredDelay() {
        long base = this.engine.retryDelayNanos();
        return base / 2 + ThreadLocalRandom.current().nextLong(base + 1);
    }

}
