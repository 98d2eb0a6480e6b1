package io.github.redlock.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The acquisition side of the Redlock algorithm: attempts decided by quorum and validity, the clean-up on
 * every node after a failed attempt, and jittered retries. Releases and extensions are the
 * {@link FollowUps}'. Everything is asynchronous; the synchronous API blocks on these futures with a bound.
 */
final class LockEngine {

    private final NodeSet nodes;

    private final FollowUps followUps;

    private final HeldLeases held;

    private final long retryDelayNanos;

    private final double acquisitionBudget;

    /** How long a refused reader or writer stays queued without trying again, in ms. */
    private final byte[] queueMillis;

    /** The nodes' fencing counter, or null when fencing is off. */
    private final byte[] counterKey;

    /** Wakes waiters when a lock they wait for is released. */
    private final ReleaseMessages messages;

    /** Callers in this JVM that wait for the same exclusive lock: only the first contends. */
    private final LocalLines lines;

    LockEngine(NodeSet nodes, long retryDelayNanos, double acquisitionBudget, long maxTtlMillis, byte[] counterKey,
            ReleaseMessages messages) {
        this.nodes = nodes;
        this.counterKey = counterKey;
        this.messages = messages;
        this.lines = new LocalLines(ForkJoinPool.commonPool());
        this.held = new HeldLeases();
        this.followUps = new FollowUps(nodes, this.held, maxTtlMillis, messages);
        this.retryDelayNanos = retryDelayNanos;
        this.acquisitionBudget = acquisitionBudget;
        // Longer than the largest jittered retry delay plus the attempts' node timeouts.
        long queueMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(3 * retryDelayNanos + 4 * nodes.nodeTimeoutNanos()));
        this.queueMillis = Long.toString(queueMillis).getBytes(StandardCharsets.US_ASCII);
    }

    int quorum() {
        return this.nodes.quorum();
    }

    long callBoundNanos() {
        return this.nodes.callBoundNanos();
    }

    long maxTtlMillis() {
        return this.followUps.maxTtlMillis();
    }

    /** The leases not released yet (they may have expired). */
    List<RedlockLease> leases() {
        return this.held.snapshot();
    }

    /**
     * Stops accepting acquisitions, and stops every held lease's auto-extension and loss watch: each is lost
     * (its {@code lost()} completes), as nothing extends it any more.
     */
    void close() {
        this.held.close();
        this.messages.close();
    }

    /**
     * Makes attempts until one acquires the lock or the wait time has passed. Between attempts it waits for a
     * release message of the lock (see {@link ReleaseMessages}), for the holder's key to expire where the nodes
     * said when, or for a jittered delay, whichever comes first. Cancelling the returned future stops the
     * retries; a lease acquired after the cancellation is released.
     * @return the last attempt: with a lease, or the facts of its failure
     */
    CompletableFuture<Attempt> acquire(LockType type, String key, String redisKey, long ttlMillis, long waitNanos) {
        CompletableFuture<Attempt> result = new CompletableFuture<>();
        Retries retries = new Retries(type, key, type.keys(redisKey, this.counterKey), ttlMillis, System.nanoTime() + waitNanos,
                waitNanos > 0, result);
        if (waitNanos <= 0) {
            retries.run();
            return result;
        }
        LocalLines.Place place = (type == LockType.EXCLUSIVE) ? this.lines.join(redisKey, retries.turn) : LocalLines.Place.UNLINED;
        if (place == LocalLines.Place.UNLINED) {
            retries.start();
            return result;
        }
        result.whenComplete((attempt, failure) -> this.lines.leave(redisKey, retries.turn));
        if (place == LocalLines.Place.FIRST) {
            retries.start();
        }
        else {
            io.netty.util.Timeout outOfTime = this.nodes.schedule((timeout) -> retries.outOfTime(), waitNanos);
            result.whenComplete((attempt, failure) -> outOfTime.cancel());
        }
        return result;
    }

    /**
     * One attempt: SET NX PX (or the read or write lock's script) to every node at once, decided as soon as
     * the outcome is known. The lock is held iff a quorum agreed and {@code validity = ttl - elapsed - drift > 0}
     * (and, when configured, the attempt stayed within the acquisition budget). Otherwise the lease's
     * entries are deleted on every node; a reader or writer that will try again keeps its place in the queue.
     */
    private CompletableFuture<Attempt> attempt(LockType type, String key, LockType.Keys keys, long ttlMillis,
            long deadlineNanos, boolean waiting, String acquisitionToken) {
        // The exclusive lock draws a token per attempt. A read or write lock keeps one for the acquisition: it
        // is also its place in the nodes' queue, which must survive from one attempt to the next. Either way
        // each attempt's clean-up reaches every node before the next attempt's command, on the same connection.
        String token = (acquisitionToken != null) ? acquisitionToken : Tokens.newToken();
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        QuorumCall call = this.nodes.newCall(type.command());
        LuaScript script = type.acquireScript(keys.fence() != null, waiting);
        byte[][] args = (script == null) ? null
                : new byte[][] { tokenBytes, Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII), this.queueMillis };
        for (int i = 0; i < this.nodes.size(); i++) {
            if (script == null) {
                this.nodes.node(i).setIfAbsent(keys.acquire()[0], tokenBytes, ttlMillis, call, i);
            }
            else {
                this.nodes.node(i).acquire(script, keys.acquire(), args, call, i);
            }
        }
        return call.decision().thenCompose((reached) -> {
            String problem = reached ? validityProblem(call.elapsedNanos(), ttlMillis) : null;
            if (reached && problem == null && keys.fence() != null) {
                return confirmFencing(type, key, keys, token, call, ttlMillis, deadlineNanos);
            }
            if (reached && problem == null) {
                return CompletableFuture.completedFuture(granted(type, key, keys, token, call, null, ttlMillis, 0));
            }
            return failed(type, keys, tokenBytes, call, call, problem, ttlMillis, deadlineNanos);
        });
    }

    /**
     * The second round of a fenced acquisition: the candidate token (the largest counter of the granting nodes)
     * is written back to the nodes that hold the key; granted if a quorum confirmed within validity.
     */
    private CompletableFuture<Attempt> confirmFencing(LockType type, String key, LockType.Keys keys, String token,
            QuorumCall acquisition, long ttlMillis, long deadlineNanos) {
        long candidate = Fencing.candidate(acquisition, this.nodes.size());
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        QuorumCall confirmation = Fencing.confirm(this.nodes, keys, tokenBytes, candidate, acquisition);
        return confirmation.decision().thenCompose((confirmed) -> {
            String problem = confirmed ? validityProblem(System.nanoTime() - acquisition.startNanos(), ttlMillis)
                    : "the fencing token " + candidate + " was confirmed by " + confirmation.granted() + " node(s) of the "
                            + this.nodes.quorum() + " needed (the others no longer held the key, or did not answer)";
            if (problem == null) {
                return CompletableFuture.completedFuture(granted(type, key, keys, token, acquisition, confirmation, ttlMillis, candidate));
            }
            return failed(type, keys, tokenBytes, acquisition, confirmed ? acquisition : confirmation, problem, ttlMillis, deadlineNanos);
        });
    }

    /** Why a quorum's grant came too late to hold the lock, or null: validity ran out, or the budget was spent. */
    private String validityProblem(long elapsed, long ttlMillis) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long drift = this.nodes.drift(ttlNanos);
        if (ttlNanos - elapsed - drift <= 0) {
            return "validity ran out: the attempt took " + Durations.millis(elapsed) + " of the " + ttlMillis
                    + " ms ttl (drift " + Durations.millis(drift) + ")";
        }
        if (elapsed > ttlNanos * this.acquisitionBudget) {
            return "the attempt took " + Durations.millis(elapsed) + ", more than the acquisition budget of "
                    + Durations.millis((long) (ttlNanos * this.acquisitionBudget));
        }
        return null;
    }

    /**
     * The lease of an attempt that holds the lock: each node that granted holds the key until the attempt's
     * start plus the ttl, less drift; a node that said no to the fencing token's confirmation holds nothing.
     */
    private Attempt granted(LockType type, String key, LockType.Keys keys, String token, QuorumCall acquisition,
            QuorumCall confirmation, long ttlMillis, long fencingToken) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        NodeExpiries expiries = new NodeExpiries(this.nodes.size(), acquisition.startNanos());
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeReply reply = acquisition.reply(i);
            NodeReply confirmed = (confirmation != null) ? confirmation.reply(i) : null;
            if (reply != null && reply.granted() && (confirmed == null || confirmed.outcome() != NodeReply.Outcome.DENIED)) {
                expiries.raise(i, acquisition.startNanos() + ttlNanos - this.nodes.drift(ttlNanos));
            }
        }
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        LeaseHandle handle = new LeaseHandle(type, keys, tokenBytes, acquisition, expiries, this.nodes.quorum(), ttlMillis, fencingToken);
        RedlockLease lease = new RedlockLease(this.followUps, handle, key, token);
        this.held.add(lease);
        return Attempt.acquired(lease);
    }

    /**
     * A failed attempt: the lease's entries are deleted on every node the acquisition may have reached,
     * including those that said no or timed out; enqueued before the caller learns of the failure, so that its
     * next attempt follows the clean-up on every connection.
     * @param report the call whose replies the failure reports
     */
    private CompletableFuture<Attempt> failed(LockType type, LockType.Keys keys, byte[] tokenBytes, QuorumCall acquisition,
            QuorumCall report, String problem, long ttlMillis, long deadlineNanos) {
        boolean retrying = System.nanoTime() - deadlineNanos < 0;
        Attempt failed = Attempt.failed(report, problem, retrying);
        LuaScript cleanup = retrying ? type.retryCleanupScript() : type.releaseScript();
        // A read or write lock's retry clean-up is never owed: the next attempt uses the same token.
        long owedUntil = (retrying && type != LockType.EXCLUSIVE) ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        return this.nodes.inProgramOrder(() -> {
            // sent here, not through release(): one hop at most
            // A retry's clean-up does not publish: waiters, this one included, would wake each other in turn
            // while a holder keeps the lock on a bare quorum. A final one (the caller gave up) does.
            byte[][] args = retrying ? new byte[][] { tokenBytes } : new byte[][] { tokenBytes, keys.channel() };
            this.followUps.release(cleanup, keys.cleanup(retrying), args, acquisition, owedUntil);
            return failed;
        });
    }

    /**
     * The outcome of an acquisition: a lease, or the node replies of the last attempt (null when no attempt
     * was decided) and what else went wrong.
     */
    record Attempt(RedlockLease lease, QuorumCall call, String problem, int attempts, boolean retrying) {

        static Attempt acquired(RedlockLease lease) {
            return new Attempt(lease, null, null, 1, false);
        }

        static Attempt failed(QuorumCall call, String problem, boolean retrying) {
            return new Attempt(null, call, problem, 1, retrying);
        }

        Attempt afterAttempts(int count) {
            return new Attempt(this.lease, this.call, this.problem, count, false);
        }

        int agreed() {
            return (this.call != null) ? this.call.granted() : 0;
        }

        Map<String, String> failures() {
            return (this.call != null) ? this.call.failures() : Map.of();
        }

    }

    /**
     * The retry loop of one acquisition. Between attempts it waits; a release message ({@link #wake()}) or the
     * end of the delay, whichever comes first, starts the next attempt, once. An attempt after the first is
     * never started on an I/O thread (it runs on the JDK's delay scheduler or the common pool): a read or write
     * lock's next attempt, with the same token, must reach each node after the previous attempt's clean-up,
     * and an I/O thread would write it to its own connections ahead of the clean-up queued there.
     */
    private final class Retries implements Runnable {

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

        /** The read or write lock's token for every attempt (its place in the queue); null for the exclusive lock. */
        private final String token;

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
        private volatile ReleaseMessages.Subscription subscription;

        /** The token of the last release in this JVM that woke this caller: the nodes' messages of it are ignored. */
        private volatile ByteBuffer lastLocalRelease;

        /** What the local line runs when this caller's turn comes; one instance, as the line knows it by identity. */
        final Runnable turn = this::yourTurn;

        Retries(LockType type, String key, LockType.Keys keys, long ttlMillis, long deadlineNanos, boolean waiting,
                CompletableFuture<Attempt> result) {
            this.type = type;
            this.key = key;
            this.keys = keys;
            this.ttlMillis = ttlMillis;
            this.deadlineNanos = deadlineNanos;
            this.waiting = waiting;
            this.result = result;
            this.token = (type != LockType.EXCLUSIVE) ? Tokens.newToken() : null;
        }

        /**
         * Starts the attempts of a caller that waits (once; the wait time may have ended first). It listens for
         * releases in this JVM before its first attempt (so that a release right after its refusal is heard), and
         * on the nodes from its first refusal on ({@link #waitForNext}), so that a caller that gets the lock at
         * once costs no subscription.
         */
        void start() {
            if (this.started.compareAndSet(false, true)) {
                ReleaseMessages.Subscription subscription = LockEngine.this.messages.listen(this.keys.channel(), this::wake);
                this.subscription = subscription;
                this.result.whenComplete((attempt, failure) -> subscription.close());
                run();
            }
        }

        /** The callers before this one in the local line are gone: contend now (on a thread that is not an I/O thread). */
        private void yourTurn() {
            if (System.nanoTime() - this.deadlineNanos >= 0) {
                outOfTime();
            }
            else {
                start();
            }
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
            if (!inOrder && released.equals(this.lastLocalRelease)) {
                return;
            }
            if (inOrder) {
                this.lastLocalRelease = released;
            }
            this.wakes.incrementAndGet();
            if (this.phase.compareAndSet(WAITING, ATTEMPTING)) {
                run();
            }
        }

        @Override
        public void run() {
            if (this.result.isDone()) {
                return; // cancelled by the caller
            }
            if (LockEngine.this.held.isClosed()) {
                this.result.completeExceptionally(new IllegalStateException("Redlock is closed"));
                return;
            }
            this.attempts++;
            long seen = this.wakes.get(); // before the attempt is sent
            CompletableFuture<Attempt> next;
            try {
                next = attempt(this.type, this.key, this.keys, this.ttlMillis, this.deadlineNanos, this.waiting, this.token);
            }
            catch (RuntimeException ex) {
                this.result.completeExceptionally(ex); // e.g. its Redlock was closed meanwhile
                return;
            }
            next.whenComplete((attempt, failure) -> {
                if (failure != null) {
                    this.result.completeExceptionally(failure);
                }
                else if (attempt.lease() != null) {
                    if (!this.result.complete(attempt)) {
                        attempt.lease().releaseAsync(); // the caller gave up meanwhile
                    }
                }
                else if (!attempt.retrying()) {
                    // The clean-up decided whether this was the last attempt (a writer then left the queue).
                    this.result.complete(attempt.afterAttempts(this.attempts));
                }
                else {
                    waitForNext(attempt, seen);
                }
            });
        }

        /** Waits for a release message, the holder's key to expire, or the jittered delay, whichever is first. */
        private void waitForNext(Attempt attempt, long seen) {
            ReleaseMessages.Subscription listening = this.subscription;
            if (listening != null) {
                listening.onNodes();
            }
            long remaining = this.deadlineNanos - System.nanoTime();
            long delay = Math.max(0, Math.min(Math.min(jitteredDelay(), untilQuorumFree(attempt.call())), remaining));
            this.phase.set(WAITING);
            if (this.wakes.get() != seen && this.phase.compareAndSet(WAITING, ATTEMPTING)) {
                // A message came during the attempt. Never from this thread: it may be an I/O thread, whose own
                // connections would get the next attempt ahead of this attempt's clean-up, still queued there.
                ForkJoinPool.commonPool().execute(this);
                return;
            }
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS, Runnable::run).execute(() -> {
                if (this.phase.compareAndSet(WAITING, ATTEMPTING)) {
                    run();
                }
            });
        }

        /**
         * How long until a quorum of nodes is free, by what the refusing nodes said of the holder's key (its
         * PTTL, counted from the attempt's decision, plus a millisecond); {@code Long.MAX_VALUE} when the nodes
         * did not say (a read-write lock, a timeout, a key without expiry).
         */
        private long untilQuorumFree(QuorumCall call) {
            if (call == null || call.granted() >= LockEngine.this.nodes.quorum()) {
                return Long.MAX_VALUE; // no word from the nodes, or a quorum that came too late: the delay decides
            }
            int size = LockEngine.this.nodes.size();
            long[] freeIn = new long[size];
            long decided = call.startNanos() + call.elapsedNanos();
            long now = System.nanoTime();
            for (int i = 0; i < size; i++) {
                NodeReply reply = call.reply(i);
                if (reply != null && reply.granted()) {
                    freeIn[i] = 0; // this attempt's own key, deleted by its clean-up
                }
                else if (reply != null && reply.outcome() == NodeReply.Outcome.DENIED && reply.value() >= 0) {
                    freeIn[i] = Math.max(0, decided + TimeUnit.MILLISECONDS.toNanos(reply.value() + 1) - now);
                }
                else {
                    freeIn[i] = Long.MAX_VALUE;
                }
            }
            java.util.Arrays.sort(freeIn);
            return freeIn[LockEngine.this.nodes.quorum() - 1];
        }

        /** A uniformly random delay between half and one and a half times the retry delay. */
        private long jitteredDelay() {
            long base = LockEngine.this.retryDelayNanos;
            return base / 2 + ThreadLocalRandom.current().nextLong(base + 1);
        }

    }

}
