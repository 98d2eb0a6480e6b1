package io.github.redlock.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Collects the replies of all nodes to one command sent to every node at once, and decides as soon as the
 * outcome is known: {@code quorum} yes, or more than {@code nodes - quorum} no. Replies still in flight
 * after the decision are recorded but change nothing. Lock-free: replies arrive on I/O threads.
 */
final class QuorumCall {

    private static final AtomicIntegerFieldUpdater<QuorumCall> GRANTED =
            AtomicIntegerFieldUpdater.newUpdater(QuorumCall.class, "granted");

    private static final AtomicIntegerFieldUpdater<QuorumCall> REFUSED =
            AtomicIntegerFieldUpdater.newUpdater(QuorumCall.class, "refused");

    private final RedisNodeClient[] nodes;

    private final int quorum;

    private final NodeReply[] replies;

    private final CompletableFuture<Boolean> decision = new CompletableFuture<>();

    private final CompletableFuture<Void> allReplies = new CompletableFuture<>();

    private final long startNanos;

    private volatile int granted;

    private volatile int refused;

    private volatile long decidedNanos;

    QuorumCall(RedisNodeClient[] nodes, int quorum, long startNanos) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.replies = new NodeReply[nodes.length];
        this.startNanos = startNanos;
    }

    /**
     * Records one node's reply; the reply that settles the outcome completes {@link #decision()}.
     * @param node the node's index
     * @param reply its reply
     */
    void record(int node, NodeReply reply) {
        this.replies[node] = reply; // published to readers by the atomic increments below
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
            this.allReplies.complete(null);
        }
    }

    private void decide(boolean reached) {
        this.decidedNanos = System.nanoTime();
        this.decision.complete(reached);
    }

    /**
     * Returns a future that completes with whether the quorum was reached, as soon as that is known.
     * @return the decision
     */
    CompletableFuture<Boolean> decision() {
        return this.decision;
    }

    /**
     * Returns a future that completes once every node replied (each within the node timeout), for
     * reports that want the whole picture rather than the early decision.
     * @return completed when all replies are in
     */
    CompletableFuture<Void> allReplies() {
        return this.allReplies;
    }

    /** Time from the start of the call (before the first command was sent) to the decision. */
    long elapsedNanos() {
        return this.decidedNanos - this.startNanos;
    }

    long startNanos() {
        return this.startNanos;
    }

    int quorum() {
        return this.quorum;
    }

    /** How many nodes said yes so far. */
    int granted() {
        return this.granted;
    }

    /**
     * Returns the nodes that answered no or failed so far, by {@code host:port}, with their reasons.
     * @return failures in node order
     */
    Map<String, String> failures() {
        Map<String, String> failures = new LinkedHashMap<>();
        for (int i = 0; i < this.replies.length; i++) {
            NodeReply reply = this.replies[i];
            if (reply != null && !reply.granted()) {
                failures.put(this.nodes[i].name(), reply.reason());
            }
        }
        return failures;
    }

}
