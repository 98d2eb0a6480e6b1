package io.github.redlock.core.internal.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.FollowUps;
import io.github.redlock.core.internal.lease.LeaseHandle;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.OwedReleases;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.InFlight;
import org.jspecify.annotations.Nullable;

/**
 * The handoff of a released exclusive lease to the caller of this JVM that waits behind it ({@code handoff.lua}): the
 * release and the caller's acquisition in one script per node, decided as {@link LockEngine} decides an attempt (its
 * validity, its grant, its clean-up on failure are the engine's).
 */
final class Handoffs {

    private static final System.Logger logger = System.getLogger(Handoffs.class.getName());

    private final LockEngine engine;

    private final Cleanups cleanups;

    private final NodeSet nodes;

    private final FollowUps followUps;

    /** Work under way, which a close waits for. */
    private final InFlight work;

    /** This client's id in the nodes' records of who waits for a key: its own waiters do not stop its handoffs. */
    private final byte[] clientId;

    /**
     * Callers of this JVM waiting behind an exclusive lease of this JVM, by the lease: its release hands the lock
     * to them in the same step ({@link #handOver}). An entry leaves at that release or when its caller stops waiting.
     */
    private final ConcurrentHashMap<LeaseHandle, Retries> successors = new ConcurrentHashMap<>();

    Handoffs(LockEngine engine, Cleanups cleanups, NodeSet nodes, FollowUps followUps, InFlight work, byte[] clientId) {
        this.engine = engine;
        this.cleanups = cleanups;
        this.nodes = nodes;
        this.followUps = followUps;
        this.work = work;
        this.clientId = clientId;
    }

    /** {@code successor} waits behind {@code lease}: the lease's release hands the lock to it, if the lease is not fenced. */
    void follow(LeaseHandle lease, Retries successor) {
        if (lease.type() == LockType.EXCLUSIVE && lease.keys().fence() == null) {
            this.successors.putIfAbsent(lease, successor);
        }
    }

    /** {@code successor} no longer waits behind {@code lease}. */
    void unfollow(LeaseHandle lease, Retries successor) {
        this.successors.remove(lease, successor);
    }

    /**
     * Releases an exclusive lease by handing its key to the caller of this JVM that waits behind it, if there is
     * one that still waits: one script per node ({@code handoff.lua}) replaces the key's token by the caller's
     * where it still holds the lease's, so the key is never free in between, instead of a release followed by
     * the caller's attempt. A node where another client waits for the lock (one of its attempts was refused there
     * within the time it said it would wait, or within a ttl for a caller that does not wait: {@code cleanup.lua}
     * records it) releases instead, so that a busy line in this JVM never keeps the lock from other processes: without a
     * quorum of handoffs the caller then contends like any waiter. It is both the lease's release (its reply says whether the node still held the lease)
     * and the caller's acquisition, decided like any attempt: a quorum of nodes that handed over, within validity
     * counted from before the script was sent (each node set the key's ttl when it ran the script, after that).
     * Where the handoff fails, the caller's token is deleted again on every node it may have reached, with a
     * release message where another client waits (the lock may be free there now), and the caller tries again at once. Not for fenced
     * leases: a fencing token comes from an acquisition's two rounds.
     * @param owedUntilNanos until when a release that cannot be sent now is still worth sending later
     * @return the lease's release call, or null when nobody takes the lock over: release as usual
     */
    @Nullable QuorumCall handOver(LeaseHandle lease, long owedUntilNanos) {
        Retries successor = this.successors.remove(lease);
        if (successor == null) {
            return null;
        }
        // Tracked before the closed check: a close either waits for the handoff, or is seen here.
        CompletableFuture<Void> underWay = this.work.track(new CompletableFuture<>());
        if (this.engine.isClosed() || !successor.takeOver()) {
            underWay.complete(null);
            return null;
        }
        long ttlMillis = successor.ttlMillis();
        String token = this.engine.newToken();
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        LockType.Keys keys = lease.keys();
        QuorumCall handoff = null;
        QuorumCall release;
        try {
            handoff = this.nodes.newCall("handoff");
            release = this.nodes.newUnreportedCall("release"); // the same replies: reported once, as the handoff's
            sendHandoff(lease, tokenBytes, ttlMillis, handoff, release, owedUntilNanos);
        }
        catch (RuntimeException ex) {
            // Nothing or part of it was sent (e.g. the lock closed meanwhile): what was sent is deleted again where
            // possible, the caller tries again at once (its attempt follows what was sent), and the holder's
            // release goes as usual. A node the clean-up misses keeps the caller's token until its ttl: it is no
            // lease's, and gives the lock to no one.
            logger.log(System.Logger.Level.WARNING, "Could not hand the lock '" + lease.name() + "' over, releasing it instead: " + ex);
            if (handoff != null) {
                try {
                    this.followUps.release(LuaScript.RELEASE, keys.publishedRelease(), keys.releaseArgs(tokenBytes), handoff,
                            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis));
                }
                catch (RuntimeException again) {
                    ex.addSuppressed(again);
                }
            }
            successor.handedOver(CompletableFuture.completedFuture(Attempt.failed(null, "the handoff could not be sent: " + ex, true)),
                    underWay, tokenBytes);
            return null;
        }
        this.work.track(release.allReplies());
        long deadlineNanos = successor.deadlineNanos();
        QuorumCall handedOver = handoff;
        CompletableFuture<Attempt> attempt = handedOver.decision().thenCompose((reached) -> {
            String problem = reached ? this.engine.validityProblem(handedOver.elapsedNanos(), ttlMillis) : null;
            if (reached && problem == null) {
                return CompletableFuture.completedFuture(this.engine.granted(LockType.EXCLUSIVE, lease.name(), keys, token, handedOver, null,
                        ttlMillis, 0));
            }
            return this.cleanups.failed(LockType.EXCLUSIVE, keys, tokenBytes, handedOver, handedOver, problem, ttlMillis, deadlineNanos,
                    Cleanups.Lock.MAY_HAVE_FREED);
        });
        successor.handedOver(attempt, underWay, tokenBytes);
        return release;
    }

    /**
     * Sends the handoff script to each node the releasing lease may have reached; the others are recorded as
     * not sent, so that nothing of the new lease ever goes there.
     */
    private void sendHandoff(LeaseHandle lease, byte[] tokenBytes, long ttlMillis, QuorumCall handoff, QuorumCall release,
            long owedUntilNanos) {
        byte[] channel = lease.keys().channels()[0];
        byte[][] args = { lease.tokenBytes(), tokenBytes, Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII), channel, this.clientId };
        OwedReleases.Release plain = new OwedReleases.Release(lease.type().releaseScript(), lease.keys().publishedRelease(),
                lease.keys().releaseArgs(lease.tokenBytes()), owedUntilNanos);
        for (int i = 0; i < this.nodes.size(); i++) {
            if (lease.acquisition().maySetOn(i)) {
                this.nodes.node(i).handOver(lease.keys().handoff(), args, handoff, release, i, plain);
            }
            else {
                handoff.record(i, NodeReply.NOT_SENT);
                release.record(i, NodeReply.NOT_SENT);
            }
        }
    }

}
