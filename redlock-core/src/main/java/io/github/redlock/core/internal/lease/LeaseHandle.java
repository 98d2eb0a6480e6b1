package io.github.redlock.core.internal.lease;

import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import org.jspecify.annotations.Nullable;

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

    /**
     * Per node, the {@code run_id} of the server process that holds the lease's token: the one it granted the lease
     * through, then the one a repair wrote it to; null where the node did not grant it, or its process is unknown.
     */
    private final AtomicReferenceArray<@Nullable String> servers;

    /** Whether a release was started: nothing is repaired any more, and a repair that raced it is undone. */
    private volatile boolean ended;

    /**
     * @param servers per node, the {@code run_id} of the process that granted the lease, or null (not granted, unknown)
     */
    public LeaseHandle(LockType type, String name, LockType.Keys keys, byte[] tokenBytes, QuorumCall acquisition, NodeExpiries expiries,
            int quorum, long ttlMillis, long fencingToken, @Nullable String[] servers) {
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
        this.servers = new AtomicReferenceArray<>(servers);
    }

    /** The {@code run_id} of the node's process that holds the lease's token, or null when none is known to. */
    @Nullable String server(int node) {
        return this.servers.get(node);
    }

    /** A repair wrote the lease's token on the node, whose process is now {@code runId}. */
    void repaired(int node, String runId) {
        this.servers.set(node, runId);
    }

    /**
     * A grant that came after the acquisition was decided, or an extension, found the lease's token on a node whose
     * process was not known to hold it: the process checked last, unless one is known already. A later process than
     * the one that holds the token only ever makes a repair less likely.
     */
    public void heldBy(int node, @Nullable String runId) {
        if (runId != null) {
            this.servers.compareAndSet(node, null, runId);
        }
    }

    /** Whether a release of the lease was started. */
    boolean ended() {
        return this.ended;
    }

    /** A release of the lease starts: set before anything of it is sent. */
    void end() {
        this.ended = true;
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
