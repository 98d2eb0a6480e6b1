package io.github.redlock.core.internal.lease;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * For one lease, per node: the time ({@link System#nanoTime()}) until which that node is known to hold the
 * lease's key, less the clock drift allowance. The lease is valid until the quorum-th latest of these times.
 * <p>
 * Invariant: each time is a lower bound of when the node drops the key. It holds because a node's time is
 * only ever raised by a reply that saw the key ("kept for r ms more", measured from before the command was
 * sent), the scripts never shorten a key, and a reply that did not find the key marks the node as
 * {@linkplain #GONE gone} (each node runs one connection's commands in order). Both updates commute, so replies of
 * overlapping extensions may be applied in any order: an older reply never undoes a newer one. A gone node comes back
 * only through {@link #restore}, the reply of a repair that wrote the token again (a restarted node, after its
 * quarantine): a "gone" that an older extension's reply brings after it only lowers what is known, which is safe.
 * <p>
 * Lock-free: updates by CAS, reads without locking; a few longs per lease.
 */
public final class NodeExpiries {

    /** The node does not hold the key, and never will again. */
    static final long GONE = Long.MIN_VALUE;

    /** Nothing is known of the node (no yes yet): it counts as not holding the key. */
    static final long UNKNOWN = Long.MIN_VALUE + 1;

    private final AtomicLongArray until;

    /** A time before every value here: values are compared as offsets from it, as {@code nanoTime} may wrap. */
    private final long origin;

    /**
     * @param nodes how many nodes there are
     * @param origin a {@code nanoTime} before any reply of the lease, e.g. the start of its acquisition
     */
    public NodeExpiries(int nodes, long origin) {
        this.until = new AtomicLongArray(nodes);
        this.origin = origin;
        for (int i = 0; i < nodes; i++) {
            this.until.set(i, UNKNOWN);
        }
    }

    /** Records that the node holds the key until at least {@code untilNanos}; never lowers what is known. */
    public void raise(int node, long untilNanos) {
        long current;
        do {
            current = this.until.get(node);
            if (current == GONE || (current != UNKNOWN && untilNanos - this.origin <= current - this.origin)) {
                return;
            }
        }
        while (!this.until.compareAndSet(node, current, untilNanos));
    }

    /** Records that the node no longer holds the key: until a repair {@linkplain #restore restores} it. */
    void drop(int node) {
        this.until.set(node, GONE);
    }

    /**
     * Records that a repair wrote the lease's token on the node again, which holds it until at least {@code untilNanos}:
     * as {@link #raise}, but also where the node was gone.
     */
    void restore(int node, long untilNanos) {
        long current;
        do {
            current = this.until.get(node);
            if (current != GONE && current != UNKNOWN && untilNanos - this.origin <= current - this.origin) {
                return;
            }
        }
        while (!this.until.compareAndSet(node, current, untilNanos));
    }

    /**
     * Returns the time until which at least {@code quorum} nodes hold the key: the quorum-th latest of the
     * nodes' times, or {@link #UNKNOWN} when fewer than {@code quorum} nodes are known to hold it.
     */
    long validUntil(int quorum) {
        int nodes = this.until.length();
        long best = UNKNOWN;
        for (int i = 0; i < nodes; i++) {
            long candidate = this.until.get(i);
            if (candidate == GONE || candidate == UNKNOWN || (best != UNKNOWN && candidate - this.origin <= best - this.origin)) {
                continue;
            }
            // How many nodes hold it at least as long as this one: a quorum makes this a valid deadline.
            int atLeast = 0;
            for (int j = 0; j < nodes; j++) {
                long other = this.until.get(j);
                if (other != GONE && other != UNKNOWN && other - this.origin >= candidate - this.origin) {
                    atLeast++;
                }
            }
            if (atLeast >= quorum) {
                best = candidate;
            }
        }
        return best;
    }

}
