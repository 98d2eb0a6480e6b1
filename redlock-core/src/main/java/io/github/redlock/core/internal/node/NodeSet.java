package io.github.redlock.core.internal.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.support.GuardedObserver;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.jspecify.annotations.Nullable;

/**
 * The nodes as the algorithm uses them together: the quorum, calls to every node at once, the clock drift
 * allowance, and the sending of follow-up commands in program order.
 */
public final class NodeSet {

    private static final long FIXED_DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final RedisNodeClient[] nodes;

    private final String[] names;

    private final int quorum;

    private final Timer timer;

    private final Executor followUpExecutor;

    private final long nodeTimeoutNanos;

    private final NodeReply timedOut;

    private final double clockDriftFactor;

    private final @Nullable RedlockObserver observer;

    private final long callBoundNanos;

    /**
     * @param observer the application's observer, or null; guarded here so that its failures never reach the algorithm
     */
    public NodeSet(RedisNodeClient[] nodes, Timer timer, Executor followUpExecutor, long nodeTimeoutNanos, double clockDriftFactor,
            @Nullable RedlockObserver observer) {
        this.nodes = nodes;
        this.names = new String[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            this.names[i] = nodes[i].name();
        }
        this.quorum = nodes.length / 2 + 1;
        this.timer = timer;
        this.followUpExecutor = followUpExecutor;
        this.nodeTimeoutNanos = nodeTimeoutNanos;
        this.timedOut = NodeReply.timedOut(nodeTimeoutNanos);
        this.clockDriftFactor = clockDriftFactor;
        this.observer = GuardedObserver.of(observer);
        // Every call is decided by its node timeout; the rest is slack for a heavily loaded host.
        this.callBoundNanos = nodeTimeoutNanos + TimeUnit.SECONDS.toNanos(5);
    }

    public int size() {
        return this.nodes.length;
    }

    public RedisNodeClient node(int index) {
        return this.nodes[index];
    }

    /** How many nodes must agree: {@code N/2 + 1}. */
    public int quorum() {
        return this.quorum;
    }

    public long nodeTimeoutNanos() {
        return this.nodeTimeoutNanos;
    }

    public long callBoundNanos() {
        return this.callBoundNanos;
    }

    /** The guarded observer, or null. */
    public @Nullable RedlockObserver observer() {
        return this.observer;
    }

    /** Starts a call to every node: the clock and the node timeout start now, before anything is sent. */
    public QuorumCall newCall(String command) {
        return new QuorumCall(this.names, this.quorum, this.timer, this.nodeTimeoutNanos, this.timedOut, command, this.observer);
    }

    /** A call whose node replies are not reported to the observer: they are another call's, already reported. */
    public QuorumCall newUnreportedCall(String command) {
        return new QuorumCall(this.names, this.quorum, this.timer, this.nodeTimeoutNanos, this.timedOut, command, null);
    }

    /** The clock drift allowance for a time to live: {@code ttl * clockDriftFactor + 2 ms}. */
    public long drift(long ttlNanos) {
        return (long) (ttlNanos * this.clockDriftFactor) + FIXED_DRIFT_NANOS;
    }

    /** Runs a task on the shared timer (coarse: about 10 ms). */
    public Timeout schedule(TimerTask task, long delayNanos) {
        return this.timer.newTimeout(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
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
    public <T> CompletableFuture<T> inProgramOrder(Supplier<T> send) {
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            return CompletableFuture.supplyAsync(send, this.followUpExecutor);
        }
        return CompletableFuture.completedFuture(send.get());
    }

}
