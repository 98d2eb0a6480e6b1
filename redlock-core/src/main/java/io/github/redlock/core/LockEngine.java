package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * The Redlock algorithm over the nodes: acquisition attempts with quorum and validity, clean-up on every
 * node after a failed attempt, jittered retries, compare-and-delete release and compare-and-PEXPIRE extend.
 * Everything is asynchronous; the synchronous API blocks on these futures with a bound.
 */
final class LockEngine {

    /**
     * Token sources: independent DRBG instances, one picked at random per token. A single shared
     * {@code SecureRandom} serialises every acquisition on one monitor (and all NativePRNG instances share
     * one), which stalled threads for over 10 ms at 64 threads in the benchmarks.
     */
    private static final SecureRandom[] RANDOMS = newRandoms(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    /** Size of the held-lease set past which expired, never-released leases are dropped from it. */
    private static final int HELD_PURGE_THRESHOLD = 1024;

    private static final long FIXED_DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final RedisNodeClient[] nodes;

    private final int quorum;

    private final double clockDriftFactor;

    private final long retryDelayNanos;

    private final double acquisitionBudget;

    private final Timer timer;

    private final Executor followUpExecutor;

    private final long nodeTimeoutNanos;

    /** How long a refused reader or writer stays queued without trying again, in ms. */
    private final byte[] queueMillis;

    private final NodeReply timedOut;

    private final long callBoundNanos;

    private final RedlockObserver observer;

    /** The leases of this instance not yet released (they may have expired). */
    private final Set<RedlockLease> held = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    LockEngine(RedisNodeClient[] nodes, Timer timer, Executor followUpExecutor, long nodeTimeoutNanos, double clockDriftFactor, long retryDelayNanos,
            double acquisitionBudget, RedlockObserver observer) {
        this.nodes = nodes;
        this.quorum = nodes.length / 2 + 1;
        this.timer = timer;
        this.followUpExecutor = followUpExecutor;
        this.nodeTimeoutNanos = nodeTimeoutNanos;
        this.timedOut = NodeReply.timedOut(nodeTimeoutNanos);
        this.clockDriftFactor = clockDriftFactor;
        this.retryDelayNanos = retryDelayNanos;
        this.acquisitionBudget = acquisitionBudget;
        this.observer = GuardedObserver.of(observer);
        // Longer than the largest jittered retry delay plus the attempts' node timeouts.
        long queueMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(3 * retryDelayNanos + 4 * nodeTimeoutNanos));
        this.queueMillis = Long.toString(queueMillis).getBytes(StandardCharsets.US_ASCII);
        // Every call is decided by its node timeout; the rest is slack for a heavily loaded host.
        this.callBoundNanos = nodeTimeoutNanos + TimeUnit.SECONDS.toNanos(5);
    }

    int quorum() {
        return this.quorum;
    }

    long callBoundNanos() {
        return this.callBoundNanos;
    }

    /**
     * Stops accepting acquisitions, and stops every held lease's auto-extension and loss watch: each is lost
     * (its {@code lost()} completes), as nothing extends it any more.
     */
    void close() {
        this.closed = true;
        this.held.forEach(RedlockLease::closed);
    }

    boolean isClosed() {
        return this.closed;
    }

    /** Runs a task on the engine's timer (coarse: about 10 ms), e.g. a lease's next extension. */
    Timeout schedule(TimerTask task, long delayNanos) {
        return this.timer.newTimeout(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /**
     * Makes attempts until one acquires the lock or the wait time has passed, with a jittered delay between
     * attempts. Cancelling the returned future stops the retries; a lease acquired after the cancellation
     * is released.
     * @return the last attempt: with a lease, or the facts of its failure
     */
    CompletableFuture<Attempt> acquire(LockType type, String key, String redisKey, long ttlMillis, long waitNanos) {
        CompletableFuture<Attempt> result = new CompletableFuture<>();
        new Retries(type, key, type.keys(redisKey), ttlMillis, System.nanoTime() + waitNanos, result).run();
        return result;
    }

    /**
     * One attempt: SET NX PX (or the read or write lock's script) to every node at once, decided as soon as
     * the outcome is known. The lock is held iff a quorum agreed and {@code validity = ttl - elapsed - drift > 0}
     * (and, when configured, the attempt stayed within the acquisition budget). Otherwise the lease's
     * entries are deleted on every node; a reader or writer that will try again keeps its place in the queue.
     */
    private CompletableFuture<Attempt> attempt(LockType type, String key, LockType.Keys keys, long ttlMillis,
            long deadlineNanos, String acquisitionToken) {
        // The exclusive lock draws a token per attempt. A read or write lock keeps one for the acquisition: it
        // is also its place in the nodes' queue, which must survive from one attempt to the next. Either way
        // each attempt's clean-up reaches every node before the next attempt's command, on the same connection.
        String token = (acquisitionToken != null) ? acquisitionToken : newToken();
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        QuorumCall call = newCall(type.command());
        LuaScript script = type.acquireScript();
        byte[][] args = (script == null) ? null
                : new byte[][] { tokenBytes, Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII), this.queueMillis };
        for (int i = 0; i < this.nodes.length; i++) {
            if (script == null) {
                this.nodes[i].setIfAbsent(keys.acquire()[0], tokenBytes, ttlMillis, call, i);
            }
            else {
                this.nodes[i].acquire(script, keys.acquire(), args, call, i);
            }
        }
        return call.decision().thenCompose((reached) -> {
            long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
            long drift = drift(ttlNanos);
            long elapsed = call.elapsedNanos();
            String problem = null;
            if (reached && ttlNanos - elapsed - drift <= 0) {
                problem = "validity ran out: the attempt took " + millis(elapsed) + " of the " + ttlMillis
                        + " ms ttl (drift " + millis(drift) + ")";
            }
            else if (reached && elapsed > ttlNanos * this.acquisitionBudget) {
                problem = "the attempt took " + millis(elapsed) + ", more than the acquisition budget of "
                        + millis((long) (ttlNanos * this.acquisitionBudget));
            }
            if (reached && problem == null) {
                NodeExpiries expiries = new NodeExpiries(this.nodes.length, call.startNanos());
                for (int i = 0; i < this.nodes.length; i++) {
                    NodeReply reply = call.reply(i);
                    if (reply != null && reply.granted()) {
                        expiries.raise(i, call.startNanos() + ttlNanos - drift);
                    }
                }
                RedlockLease lease = new RedlockLease(this, type, key, keys, token, tokenBytes, call, ttlMillis, expiries);
                if (this.held.add(lease) && this.held.size() > HELD_PURGE_THRESHOLD) {
                    this.held.removeIf((stale) -> !stale.isValid()); // leases whose holders never released them
                }
                return CompletableFuture.completedFuture(Attempt.acquired(lease));
            }
            boolean retrying = System.nanoTime() - deadlineNanos < 0;
            Attempt failed = Attempt.failed(call, problem, retrying);
            // On all nodes, including those that said no or timed out; enqueued before the caller learns of
            // the failure, so that its next attempt follows the clean-up on every connection.
            LuaScript cleanup = retrying ? type.retryCleanupScript() : type.releaseScript();
            long owedUntil = System.nanoTime() + ttlNanos;
            return inProgramOrder(() -> {
                // sent here, not through release(): one hop at most
                releaseCall(cleanup, keys.cleanup(retrying), new byte[][] { tokenBytes }, call, owedUntil);
                return failed;
            });
        });
    }

    /**
     * Releases a lease of this instance on every node at once (compare-and-delete, or removal of the
     * reader's token) and stops listing it as held.
     * @return a future of whether a quorum still held the lease
     */
    CompletableFuture<Boolean> release(RedlockLease lease) {
        this.held.remove(lease);
        long start = System.nanoTime();
        LockType type = lease.type();
        byte[][] keys = lease.keys().release();
        byte[][] args = { lease.tokenBytes() };
        long owedUntil = start + TimeUnit.MILLISECONDS.toNanos(lease.longestTtlMillis());
        CompletableFuture<Boolean> released = inProgramOrder(() -> releaseCall(type.releaseScript(), keys, args,
                lease.acquisition(), owedUntil)).thenCompose(QuorumCall::decision);
        if (this.observer != null) {
            released.thenAccept((done) -> this.observer.released(done, System.nanoTime() - start));
        }
        return released;
    }

    /** The leases of this instance that were not released yet. */
    Set<RedlockLease> held() {
        return this.held;
    }

    /**
     * Compare-and-extend (for a reader: renewal of its token's expiry) on every node at once. Each node keeps
     * the longer of its key's time to live and {@code ttlMillis}, and says how long that is; every answer is
     * recorded in the lease's {@link NodeExpiries} (a yes raises that node's time, a no drops the node), also
     * answers that come after the decision.
     * @return a future of the outcome: extended when a quorum of nodes confirmed the key past now
     */
    CompletableFuture<ExtendOutcome> extend(RedlockLease lease, long ttlMillis) {
        byte[][] keys = lease.keys().extend();
        byte[][] args = { lease.tokenBytes(), Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII) };
        LuaScript script = lease.type().extendScript();
        return inProgramOrder(() -> extendCall(script, keys, args, lease.acquisition())).thenCompose((call) -> call.decision().thenApply((reached) -> {
            int holding = record(lease.expiries(), call);
            call.allReplies().thenRun(() -> record(lease.expiries(), call)); // late answers count too
            boolean extended = reached && holding >= this.quorum;
            if (this.observer != null) {
                this.observer.extended(extended, System.nanoTime() - call.startNanos());
            }
            if (extended) {
                return ExtendOutcome.EXTENDED;
            }
            return (call.denied() > this.nodes.length - this.quorum) ? ExtendOutcome.REFUSED : ExtendOutcome.NOT_EXTENDED;
        }));
    }

    /**
     * Records what an extension's nodes said into the lease's per-node times: a node that keeps the key for
     * {@code r} ms holds it until at least the call's start plus {@code r}, less drift; a node without it is gone.
     * @return how many nodes this call showed to hold the key past now
     */
    private int record(NodeExpiries expiries, QuorumCall call) {
        long now = System.nanoTime();
        int holding = 0;
        for (int i = 0; i < this.nodes.length; i++) {
            NodeReply reply = call.reply(i);
            if (reply == null) {
                continue;
            }
            if (reply.outcome() == NodeReply.Outcome.DENIED) {
                expiries.drop(i);
            }
            else if (reply.granted() && reply.heldMillis() > 0) {
                long held = TimeUnit.MILLISECONDS.toNanos(reply.heldMillis());
                long until = call.startNanos() + held - drift(held);
                expiries.raise(i, until);
                if (until - now > 0) {
                    holding++;
                }
            }
        }
        return holding;
    }

    /**
     * Sends a release or clean-up to every node the acquisition's SET may have reached; the others (refused
     * before sending: disconnected, or too many replies pending) hold nothing of this lease. One that cannot
     * be sent now is sent when its node is back, until {@code owedUntilNanos}.
     */
    private QuorumCall releaseCall(LuaScript script, byte[][] keys, byte[][] args, QuorumCall acquisition, long owedUntilNanos) {
        QuorumCall call = newCall("release");
        for (int i = 0; i < this.nodes.length; i++) {
            if (acquisition.maySetOn(i)) {
                this.nodes[i].release(script, keys, args, call, i, owedUntilNanos);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        return call;
    }

    /** Sends an extension to every node the acquisition's SET may have reached, as {@link #releaseCall} does. */
    private QuorumCall extendCall(LuaScript script, byte[][] keys, byte[][] args, QuorumCall acquisition) {
        QuorumCall call = newCall("extend");
        for (int i = 0; i < this.nodes.length; i++) {
            if (acquisition.maySetOn(i)) {
                this.nodes[i].extend(script, keys, args, call, i);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        return call;
    }

    /**
     * Sends follow-up commands (clean-up, release, extend) so that each reaches its node after every
     * command sent before it to that node. From an application thread that holds by itself: its writes
     * queue up behind earlier ones on each connection's I/O thread. An I/O thread, though, writes to its
     * own connections at once, ahead of writes other threads queued there, e.g. the SET of the attempt
     * being cleaned up. From I/O threads the sending therefore moves to the computation executor, and
     * {@code send} must send directly: a nested call would hop again (computation threads look like I/O
     * threads here) and complete before its commands were queued.
     */
    private <T> CompletableFuture<T> inProgramOrder(Supplier<T> send) {
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            return CompletableFuture.supplyAsync(send, this.followUpExecutor);
        }
        return CompletableFuture.completedFuture(send.get());
    }

    /** Starts a call to every node: the clock and the node timeout start now, before anything is sent. */
    private QuorumCall newCall(String command) {
        return new QuorumCall(this.nodes, this.quorum, this.timer, this.nodeTimeoutNanos, this.timedOut, command,
                this.observer);
    }

    /**
     * Waits for a future of this engine, at most {@code boundNanos}. On interruption or time-out the future is
     * cancelled (so that retries stop and a lease that arrives later is released) and {@code fallback} is
     * returned, with the thread's interrupt flag restored. A future that completed before it could be
     * cancelled keeps its result, which is returned: a lease acquired at the moment its caller gave up is
     * then the caller's, never an orphan.
     */
    static <T> T await(CompletableFuture<T> future, long boundNanos, Supplier<T> fallback) {
        try {
            return future.get(boundNanos, TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return abandon(future, fallback);
        }
        catch (TimeoutException ex) {
            return abandon(future, fallback);
        }
        catch (ExecutionException ex) {
            throw rethrown(ex.getCause());
        }
    }

    private static <T> T abandon(CompletableFuture<T> future, Supplier<T> fallback) {
        if (future.cancel(false)) {
            return fallback.get();
        }
        try {
            return future.join(); // completed first: no waiting
        }
        catch (CompletionException ex) {
            throw rethrown(ex.getCause());
        }
    }

    private static RuntimeException rethrown(Throwable cause) {
        return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
    }

    /** The clock drift allowance for a time to live: {@code ttl * clockDriftFactor + 2 ms}. */
    private long drift(long ttlNanos) {
        return (long) (ttlNanos * this.clockDriftFactor) + FIXED_DRIFT_NANOS;
    }

    private static String millis(long nanos) {
        return String.format("%.1f ms", nanos / 1_000_000.0);
    }

    /** A fresh, unguessable token: 128 bits from a CSPRNG, URL-safe Base64 (22 characters). */
    static String newToken() {
        byte[] bytes = new byte[16];
        RANDOMS[ThreadLocalRandom.current().nextInt(RANDOMS.length)].nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static SecureRandom[] newRandoms(int count) {
        SecureRandom[] randoms = new SecureRandom[count];
        for (int i = 0; i < count; i++) {
            try {
                randoms[i] = SecureRandom.getInstance("DRBG"); // seeded from the platform's entropy source
            }
            catch (NoSuchAlgorithmException ex) {
                randoms[i] = new SecureRandom();
            }
        }
        return randoms;
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

    /** The retry loop of one acquisition; each step runs on an I/O thread or the JDK's delay scheduler. */
    private final class Retries implements Runnable {

        private final LockType type;

        private final String key;

        private final LockType.Keys keys;

        private final long ttlMillis;

        private final long deadlineNanos;

        private final CompletableFuture<Attempt> result;

        private int attempts;

        /** The read or write lock's token for every attempt (its place in the queue); null for the exclusive lock. */
        private final String token;

        Retries(LockType type, String key, LockType.Keys keys, long ttlMillis, long deadlineNanos,
                CompletableFuture<Attempt> result) {
            this.type = type;
            this.key = key;
            this.keys = keys;
            this.ttlMillis = ttlMillis;
            this.deadlineNanos = deadlineNanos;
            this.result = result;
            this.token = (type != LockType.EXCLUSIVE) ? newToken() : null;
        }

        @Override
        public void run() {
            if (this.result.isDone()) {
                return; // cancelled by the caller
            }
            if (LockEngine.this.closed) {
                this.result.completeExceptionally(new IllegalStateException("Redlock is closed"));
                return;
            }
            this.attempts++;
            attempt(this.type, this.key, this.keys, this.ttlMillis, this.deadlineNanos, this.token).whenComplete((attempt, failure) -> {
                if (failure != null) {
                    this.result.completeExceptionally(failure);
                }
                else if (attempt.lease() != null) {
                    if (!this.result.complete(attempt)) {
                        attempt.lease().releaseAsync(); // the caller gave up meanwhile
                    }
                }
                else {
                    // The clean-up decided whether this was the last attempt (a writer then left the queue).
                    long remaining = this.deadlineNanos - System.nanoTime();
                    if (!attempt.retrying()) {
                        this.result.complete(attempt.afterAttempts(this.attempts));
                    }
                    else {
                        long delay = Math.max(0, Math.min(jitteredDelay(), remaining));
                        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS, Runnable::run).execute(this);
                    }
                }
            });
        }

        /** A uniformly random delay between half and one and a half times the retry delay. */
        private long jitteredDelay() {
            long base = LockEngine.this.retryDelayNanos;
            return base / 2 + ThreadLocalRandom.current().nextLong(base + 1);
        }

    }

}
