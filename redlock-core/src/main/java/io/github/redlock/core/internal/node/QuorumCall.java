package io.github.redlock.core.internal.node;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.redlock.core.RedlockObserver;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * Collects the replies of all nodes to one command sent to every node at once, and decides as soon as the
 * outcome is known: {@code quorum} yes, or more than {@code nodes - quorum} no. A node that has not replied
 * when the node timeout passes counts as "timed out"; its command is not cancelled, so that commands sent
 * after it on the same connection (a clean-up after a SET) still reach the node in order. Replies after
 * the decision are recorded but change nothing, and each node counts once. Lock-free: replies arrive on
 * I/O threads, the deadline on the timer thread.
 */
public final class QuorumCall implements TimerTask {

    private static final AtomicIntegerFieldUpdater<QuorumCall> GRANTED =
            AtomicIntegerFieldUpdater.newUpdater(QuorumCall.class, "granted");

    private static final AtomicIntegerFieldUpdater<QuorumCall> REFUSED =
            AtomicIntegerFieldUpdater.newUpdater(QuorumCall.class, "refused");

    /** The nodes' names, {@code host:port}, by index. */
    private final String[] nodes;

    private final int quorum;

    private final AtomicReferenceArray<NodeReply> replies;

    private final NodeReply timedOut;

    private final String command;

    private final @Nullable RedlockObserver observer;

    private final CompletableFuture<Boolean> decision = new CompletableFuture<>();

    private final CompletableFuture<Void> allReplies = new CompletableFuture<>();

    private final long startNanos;

    private final Timeout deadline;

    private volatile int granted;

    private volatile int refused;

    private volatile long decidedNanos;

    /**
     * Starts a call: the clock starts now and the deadline is armed, before any command is sent.
     * @param timedOut the reply recorded for nodes silent at the deadline
     * @param command the command's name for the observer
     */
    public QuorumCall(String[] nodes, int quorum, Timer timer, long nodeTimeoutNanos, NodeReply timedOut, String command,
            @Nullable RedlockObserver observer) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.replies = new AtomicReferenceArray<>(nodes.length);
        this.timedOut = timedOut;
        this.command = command;
        this.observer = observer;
        this.startNanos = System.nanoTime();
        this.deadline = timer.newTimeout(this, nodeTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Records one node's reply, unless the node already counted (e.g. as timed out); the reply that settles
     * the outcome completes {@link #decision()}.
     * @param node the node's index
     * @param reply its reply
     */
    public void record(int node, NodeReply reply) {
        if (!this.replies.compareAndSet(node, null, reply)) {
            return;
        }
        String outcome = reply.metricOutcome();
        if (this.observer != null && outcome != null) {
            this.observer.nodeCommand(this.nodes[node], this.command, outcome,
                    System.nanoTime() - this.startNanos);
        }
        int granted;
        int refused;
        if (reply.granted()) {
            granted = GRANTED.incrementAndGet(this);
            refused = this.refused;
            if (granted == this.quorum) {
                decide(true);
            }
        }
        else {
            refused = REFUSED.incrementAndGet(this);
            granted = this.granted;
            if (refused == this.nodes.length - this.quorum + 1) {
                decide(false);
            }
        }
        if (granted + refused == this.nodes.length) {
            this.deadline.cancel();
            this.allReplies.complete(null);
        }
    }

    /**
     * Whether the command of this call may have reached the node: anything but a refusal before sending, or a
     * node it was not sent to at all (a handoff goes only where the releasing lease may be). Follow-ups
     * (clean-up, release, extend, handoff) go only to such nodes.
     */
    public boolean maySetOn(int node) {
        NodeReply reply = this.replies.get(node);
        return reply == null || (reply.outcome() != NodeReply.Outcome.REJECTED && reply.outcome() != NodeReply.Outcome.SKIPPED);
    }

    /** The node timeout passed: every node still silent counts as timed out. */
    @Override
    public void run(Timeout timeout) {
        for (int i = 0; i < this.nodes.length; i++) {
            record(i, this.timedOut);
        }
    }

    private void decide(boolean reached) {
        this.decidedNanos = System.nanoTime();
        this.decision.complete(reached);
    }

    /**
     * Returns a future that completes with whether the quorum was reached, as soon as that is known and at
     * the latest at the node timeout.
     * @return the decision
     */
    public CompletableFuture<Boolean> decision() {
        return this.decision;
    }

    /**
     * Returns a future that completes once every node replied or timed out, for reports that want the
     * whole picture rather than the early decision.
     * @return completed when all replies are in
     */
    public CompletableFuture<Void> allReplies() {
        return this.allReplies;
    }

    /** Time from the start of the call (before the first command was sent) to the decision. */
    public long elapsedNanos() {
        return this.decidedNanos - this.startNanos;
    }

    public long startNanos() {
        return this.startNanos;
    }

    /** The node's reply so far, or null while it has neither answered nor timed out. */
    public @Nullable NodeReply reply(int node) {
        return this.replies.get(node);
    }

    /** How many nodes said yes so far. */
    public int granted() {
        return this.granted;
    }

    /** How many nodes answered no (the key is not this client's there) so far. */
    public int denied() {
        int denied = 0;
        for (int i = 0; i < this.nodes.length; i++) {
            NodeReply reply = this.replies.get(i);
            if (reply != null && reply.outcome() == NodeReply.Outcome.DENIED) {
                denied++;
            }
        }
        return denied;
    }

    /**
     * Returns every node's outcome so far, by {@code host:port} in the nodes' order: the outcome's name in lower
     * case ({@code granted}, {@code denied}, {@code rejected}, {@code timeout}, {@code error}, {@code skipped}),
     * or {@code pending} for a node that has neither answered nor timed out yet.
     * @return the outcomes, for observations
     */
    public Map<String, String> answers() {
        Map<String, String> answers = new LinkedHashMap<>();
        for (int i = 0; i < this.nodes.length; i++) {
            NodeReply reply = this.replies.get(i);
            answers.put(this.nodes[i], (reply != null) ? reply.outcome().name().toLowerCase(java.util.Locale.ROOT) : "pending");
        }
        return answers;
    }

    /**
     * Returns the nodes that answered no, failed or timed out so far, by {@code host:port}, with their reasons.
     * @return failures in node order
     */
    public Map<String, String> failures() {
        Map<String, String> failures = new LinkedHashMap<>();
        for (int i = 0; i < this.nodes.length; i++) {
            NodeReply reply = this.replies.get(i);
            if (reply != null && !reply.granted()) {
                failures.put(this.nodes[i], reply.reason());
            }
        }
        return failures;
    }

    /**
     * How long after {@code nowNanos} a quorum of the nodes is free, by their replies: a node that said yes at once (this
     * attempt's own key, deleted by its clean-up), one that refused with the holder's PTTL once that PTTL, counted from
     * the decision, and a millisecond have passed, any other never ({@code Long.MAX_VALUE}: a read-write lock, a
     * timeout, a key without expiry). The {@code quorum}-th soonest; {@code Long.MAX_VALUE} when fewer are ever free.
     */
    public long untilQuorumFree(int quorum, long nowNanos) {
        long[] freeIn = new long[this.nodes.length];
        long decided = this.decidedNanos;
        for (int i = 0; i < freeIn.length; i++) {
            NodeReply reply = this.replies.get(i);
            if (reply != null && reply.granted()) {
                freeIn[i] = 0;
            }
            else if (reply != null && reply.outcome() == NodeReply.Outcome.DENIED && reply.value() >= 0) {
                freeIn[i] = Math.max(0, decided + TimeUnit.MILLISECONDS.toNanos(reply.value() + 1) - nowNanos);
            }
            else {
                freeIn[i] = Long.MAX_VALUE;
            }
        }
        java.util.Arrays.sort(freeIn);
        return freeIn[quorum - 1];
    }

}
