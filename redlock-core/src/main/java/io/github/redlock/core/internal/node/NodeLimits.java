package io.github.redlock.core.internal.node;

import io.github.redlock.core.NodeConnector;

/**
 * The bounds on what may wait for one node. Acquisitions and extensions stop at half of Lettuce's
 * per-connection queue, and each of them is followed by at most one release or clean-up, so every release
 * fits: a frozen node that wakes up deletes every late key, and Lettuce never has to refuse a command.
 */
public final class NodeLimits {

    /**
     * Per-node bound on commands awaiting a reply (Lettuce's request queue); past it commands are rejected. The client
     * options every node connection must have ({@link NodeConnector#clientOptions}) set it.
     */
    public static final int REQUEST_QUEUE_SIZE = NodeConnector.clientOptions(NodeConnector.DEFAULT_NODE_TIMEOUT).build().getRequestQueueSize();

    /** Commands awaiting a reply past which no acquisition or extension is sent to a node. */
    public static final int SET_LIMIT = REQUEST_QUEUE_SIZE / 2;

    /** Releases and clean-ups owed to one disconnected node at most; more are dropped (their keys expire). */
    static final int OWED_LIMIT = 10_000;

    private NodeLimits() {
    }

}
