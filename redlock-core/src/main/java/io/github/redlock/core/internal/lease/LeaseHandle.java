package io.github.redlock.core.internal.lease;

import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;

/**
 * What a lease is on the nodes: its lock type and keys, its token, the acquisition's replies (follow-ups go
 * only where the acquisition may have arrived), and what each node is known to hold. Shared by the lease, its
 * {@link LeaseWatch} and the {@link LeaseOperations}; what the holder did with it (released, lost) stays in
 * the lease.
 */
public final class LeaseHandle {

    private final LockType type;

    /** The lock's key as the caller named it (several keys joined by commas), for observations. */
    private final String name;

    private final LockType.Keys keys;

    private final byte[] tokenBytes;

    private final QuorumCall acquisition;

    private final NodeExpiries expiries;

    private final int quorum;

    private final long ttlMillis;

    /** The lease's fencing token, or 0 when it has none. */
    private final long fencingToken;

    /** The longest time to live this lease asked any node for: how long a release stays worth sending. */
    private volatile long longestTtlMillis;

    public LeaseHandle(LockType type, String name, LockType.Keys keys, byte[] tokenBytes, QuorumCall acquisition, NodeExpiries expiries,
            int quorum, long ttlMillis, long fencingToken) {
        this.type = type;
        this.name = name;
        this.keys = keys;
        this.tokenBytes = tokenBytes;
        this.acquisition = acquisition;
        this.expiries = expiries;
        this.quorum = quorum;
        this.ttlMillis = ttlMillis;
        this.longestTtlMillis = ttlMillis;
        this.fencingToken = fencingToken;
    }

    /** The fencing token, or 0 when the lease has none (fencing off, or a read lease). */
    public long fencingToken() {
        return this.fencingToken;
    }

    public LockType type() {
        return this.type;
    }

    public String name() {
        return this.name;
    }

    public LockType.Keys keys() {
        return this.keys;
    }

    public byte[] tokenBytes() {
        return this.tokenBytes;
    }

    public QuorumCall acquisition() {
        return this.acquisition;
    }

    NodeExpiries expiries() {
        return this.expiries;
    }

    /** The ttl the lease was acquired with, which automatic extension asks for again. */
    long ttlMillis() {
        return this.ttlMillis;
    }

    long longestTtlMillis() {
        return this.longestTtlMillis;
    }

    /** Notes a time to live asked for; racing calls may keep the smaller, and a release is then given up sooner. */
    void asked(long ttlMillis) {
        if (ttlMillis > this.longestTtlMillis) {
            this.longestTtlMillis = ttlMillis;
        }
    }

    /** How long a quorum of nodes is known to hold the key after {@code now} (ns); negative when none is. */
    public long validLeft(long now) {
        long until = this.expiries.validUntil(this.quorum);
        return (until == NodeExpiries.UNKNOWN) ? -1 : until - now;
    }

}
