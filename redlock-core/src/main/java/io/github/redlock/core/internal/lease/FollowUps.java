package io.github.redlock.core.internal.lease;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.InFlight;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * The commands that follow an acquisition on every node it may have reached: the compare-and-delete release
 * (also the clean-up of a failed attempt) and the compare-and-extend extension. Each goes only to nodes the
 * acquisition may have reached, after it on the same connection.
 */
public final class FollowUps implements LeaseOperations {

    private final NodeSet nodes;

    private final HeldLeases held;

    private final long maxTtlMillis;

    private final ReleaseMessages messages;

    /** Releases and clean-ups under way, which a close waits for. */
    private final InFlight work;

    /** Hands a released exclusive lock to a caller of this JVM that waits behind it. */
    private final Handover handover;

    /** Observations of releases and extensions, or null when the application gave no registry. */
    private final @Nullable LockObservations observations;

    /** How a release hands the lock to a waiting caller in the same step, instead of freeing it (see {@code LockEngine}). */
    @FunctionalInterface
    public interface Handover {

        /**
         * Sends the lease's release as a handoff to a caller waiting behind it, if there is one; call in program order.
         * @return the release's call, or null when nobody takes the lock over (nothing was sent)
         */
        @Nullable QuorumCall handOver(LeaseHandle lease, long owedUntilNanos);

    }

    /**
     * @param observations the observations of releases and extensions, or null when the application gave no registry
     */
    public FollowUps(NodeSet nodes, HeldLeases held, long maxTtlMillis, ReleaseMessages messages, InFlight work, Handover handover,
            @Nullable LockObservations observations) {
        this.nodes = nodes;
        this.observations = observations;
        this.work = work;
        this.handover = handover;
        this.held = held;
        this.maxTtlMillis = maxTtlMillis;
        this.messages = messages;
    }

    /**
     * Releases a lease on every node at once (compare-and-delete, or removal of the reader's token) and stops
     * listing it as held. A node that cannot be reached now gets the release once it is back, while the
     * key could still exist there. With {@code keepMillis} above 0 (an exclusive lease, on one key or several)
     * each node that holds the keys leaves them to expire in at most that long instead (compare-and-shorten),
     * and waiters are not told: the lock is still taken until then. With {@code keepMillis} 0, an exclusive
     * lease that a caller of this JVM waits behind is handed to that caller in the same step ({@link Handover}).
     */
    @Override
    public CompletableFuture<Boolean> release(LeaseHandle lease) {
        return release(lease, 0);
    }

    @Override
    public CompletableFuture<Boolean> releaseLater(LeaseHandle lease, long keepMillis) {
        return release(lease, keepMillis);
    }

    private CompletableFuture<Boolean> release(LeaseHandle lease, long keepMillis) {
        this.held.remove(lease);
        LockObservations observations = this.observations;
        LockObservations.Started observation = (observations != null) ? observations.releasing(lease) : null;
        long start = System.nanoTime();
        boolean later = keepMillis > 0;
        LuaScript script = later ? LuaScript.RELEASE_LATER : lease.type().releaseScript();
        byte[][] keys = later ? lease.keys().extend() : lease.keys().publishedRelease();
        byte[][] args = later ? new byte[][] { lease.tokenBytes(), Long.toString(keepMillis).getBytes(StandardCharsets.US_ASCII) }
                : lease.keys().releaseArgs(lease.tokenBytes());
        long owedUntil = start + TimeUnit.MILLISECONDS.toNanos(lease.longestTtlMillis());
        CompletableFuture<QuorumCall> sent;
        try {
            // Tracked before a hop to another thread, so that a close waits for the release to be sent.
            sent = this.work.track(this.nodes.inProgramOrder(() -> {
                QuorumCall handedOver = later ? null : this.handover.handOver(lease, owedUntil);
                if (handedOver != null) {
                    return handedOver; // the lock stays taken: no waiter to wake
                }
                QuorumCall call = release(script, keys, args, lease.acquisition(), owedUntil);
                // Waiters in this JVM go at once, without the round trip of the release message; their attempts
                // are sent after the release on every connection.
                for (byte[] channel : later ? new byte[0][] : lease.keys().channels()) {
                    this.messages.wakeLocal(channel, lease.tokenBytes());
                }
                return call;
            }));
        }
        catch (RuntimeException ex) {
            if (observations != null && observation != null) {
                observations.released(observation, null, false, ex); // nothing was sent: its keys expire with their ttl
            }
            throw ex;
        }
        CompletableFuture<Boolean> released = sent.thenCompose(QuorumCall::decision);
        if (observations != null && observation != null) {
            released.whenComplete((done, failure) -> observations.released(observation, sent.getNow(null), done, failure));
        }
        RedlockObserver observer = this.nodes.observer();
        if (observer != null) {
            released.thenAccept((done) -> observer.released(done, System.nanoTime() - start));
        }
        return released;
    }

    /**
     * Compare-and-extend (for a reader: renewal of its token's expiry) on every node at once. Each node keeps
     * the longer of its key's time to live and {@code ttlMillis}, and says how long that is; every answer is
     * recorded in the lease's {@link NodeExpiries} (a yes raises that node's time, a no drops the node), also
     * answers that come after the decision.
     * @return a future of the outcome: extended when a quorum of nodes confirmed the key past now
     */
    @Override
    public CompletableFuture<ExtendOutcome> extend(LeaseHandle lease, long ttlMillis, Extension by) {
        LockObservations observations = this.observations;
        LockObservations.Started observation = (observations != null) ? observations.extending(lease, ttlMillis, by) : null;
        lease.asked(ttlMillis);
        byte[][] keys = lease.keys().extend();
        byte[][] args = { lease.tokenBytes(), Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII) };
        LuaScript script = lease.type().extendScript();
        CompletableFuture<QuorumCall> sent;
        try {
            sent = this.nodes.inProgramOrder(() -> extend(script, keys, args, lease.acquisition()));
        }
        catch (RuntimeException ex) {
            if (observations != null && observation != null) {
                observations.extended(observation, null, null, ex);
            }
            throw ex;
        }
        CompletableFuture<ExtendOutcome> outcome = sent.thenCompose((call) -> call.decision().thenApply((reached) -> {
            int holding = record(lease.expiries(), call);
            call.allReplies().thenRun(() -> record(lease.expiries(), call)); // late answers count too
            boolean extended = reached && holding >= this.nodes.quorum();
            RedlockObserver observer = this.nodes.observer();
            if (observer != null) {
                observer.extended(extended, System.nanoTime() - call.startNanos());
            }
            if (extended) {
                return ExtendOutcome.EXTENDED;
            }
            return (call.denied() > this.nodes.size() - this.nodes.quorum()) ? ExtendOutcome.REFUSED : ExtendOutcome.NOT_EXTENDED;
        }));
        if (observations != null && observation != null) {
            outcome.whenComplete((done, failure) -> observations.extended(observation, sent.getNow(null), done, failure));
        }
        return outcome;
    }

    @Override
    public Timeout schedule(TimerTask task, long delayNanos) {
        return this.nodes.schedule(task, delayNanos);
    }

    @Override
    public long maxTtlMillis() {
        return this.maxTtlMillis;
    }

    @Override
    public long callBoundNanos() {
        return this.nodes.callBoundNanos();
    }

    @Override
    public @Nullable RedlockObserver observer() {
        return this.nodes.observer();
    }

    @Override
    public boolean isClosed() {
        return this.held.isClosed();
    }

    /**
     * Sends a release or clean-up to every node the acquisition may have reached; the others (refused before
     * sending: disconnected, or too many replies pending) hold nothing of this lease. One that cannot be sent
     * now is sent when its node is back, until {@code owedUntilNanos}. Sends directly: call it in program order.
     */
    public QuorumCall release(LuaScript script, byte[][] keys, byte[][] args, QuorumCall acquisition, long owedUntilNanos) {
        QuorumCall call = this.nodes.newCall("release");
        for (int i = 0; i < this.nodes.size(); i++) {
            if (acquisition.maySetOn(i)) {
                this.nodes.node(i).release(script, keys, args, call, i, owedUntilNanos);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        this.work.track(call.allReplies());
        return call;
    }

    private QuorumCall extend(LuaScript script, byte[][] keys, byte[][] args, QuorumCall acquisition) {
        QuorumCall call = this.nodes.newCall("extend");
        for (int i = 0; i < this.nodes.size(); i++) {
            if (acquisition.maySetOn(i)) {
                this.nodes.node(i).extend(script, keys, args, call, i);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        return call;
    }

    /**
     * Records what an extension's nodes said into the lease's per-node times: a node that keeps the key for
     * {@code r} ms holds it until at least the call's start plus {@code r}, less drift; a node without it is gone.
     * @return how many nodes this call showed to hold the key past now
     */
    private int record(NodeExpiries expiries, QuorumCall call) {
        long now = System.nanoTime();
        int holding = 0;
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeReply reply = call.reply(i);
            if (reply == null) {
                continue;
            }
            if (reply.outcome() == NodeReply.Outcome.DENIED) {
                expiries.drop(i);
            }
            else if (reply.granted() && reply.value() > 0) {
                long held = TimeUnit.MILLISECONDS.toNanos(reply.value());
                long until = call.startNanos() + held - this.nodes.drift(held);
                expiries.raise(i, until);
                if (until - now > 0) {
                    holding++;
                }
            }
        }
        return holding;
    }

}
