package io.github.redlock.core.internal.lease;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.InFlight;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * The commands that follow an acquisition on every node it may have reached: the compare-and-delete release
 * (also the clean-up of a failed attempt), the compare-and-extend extension, and the repair of a lease on a node
 * that restarted empty. Each goes only to nodes the acquisition may have reached, after it on the same connection.
 */
public final class FollowUps implements LeaseOperations {

    /**
     * A system property that turns lease repairs off when a lock is built ({@code true}): the control of the tests that
     * show what repairs prevent. Internal, not a setting.
     */
    static final String NO_REPAIRS_PROPERTY = "redlock.internal.no-lease-repairs";

    private static final byte[] WRITER = { 'w' };

    private static final byte[] READER = { 'r' };

    private static final System.Logger logger = System.getLogger(FollowUps.class.getName());

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

    /** Whether extensions repair leases on restarted nodes ({@link #NO_REPAIRS_PROPERTY}). */
    private final boolean repairs = !Boolean.getBoolean(NO_REPAIRS_PROPERTY);

    /** Per node, the {@code run_id} of the last process a repair was logged for: one line per restart, not per lease. */
    private final AtomicReferenceArray<@Nullable String> repairLogged;

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
        this.repairLogged = new AtomicReferenceArray<>(nodes.size());
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
        lease.end(); // before anything is sent: a repair that races the release undoes itself (see repaired)
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
            int holding = record(lease, call);
            call.allReplies().thenRun(() -> {
                record(lease, call); // late answers count too
                if (reached && holding >= this.nodes.quorum()) {
                    repair(lease, call); // after the last answer is recorded: none of this call's can undo a repair
                }
            });
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
     * Writes the lease's token again on the nodes where this successful extension found it gone because the node
     * restarted since it held the token: its {@code run_id} changed, and it votes again (its restart quarantine is
     * over, so no lease can depend on what the node lost; this one stood on the other nodes meanwhile). Never on a node
     * that did not restart (a revoke or an expiry there is real), nor on a cluster node (its {@code run_id} is not one
     * server's), nor once a release started; an exclusive lease, on one key or several, only where its keys are all free
     * ({@code repair.lua}), a write lease only where no writer and no live reader is, a read lease only where no writer is
     * ({@code repair-rw.lua}): another holder's key is never replaced. The keys live for the lease's remaining
     * validity, counted from before the repair is sent, and from its reply on the node counts toward the lease's
     * validity again, as after an acquisition.
     */
    private void repair(LeaseHandle lease, QuorumCall extension) {
        if (!this.repairs || lease.ended()) {
            return;
        }
        long ttlMillis = TimeUnit.NANOSECONDS.toMillis(lease.validLeft(System.nanoTime()));
        if (ttlMillis < 1) {
            return;
        }
        @Nullable String[] restarted = new String[this.nodes.size()];
        boolean any = false;
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeReply reply = extension.reply(i);
            String before = lease.server(i);
            RedisNodeClient node = this.nodes.node(i);
            String now = node.vote().runId();
            if (reply != null && reply.outcome() == NodeReply.Outcome.DENIED && before != null && now != null && !now.equals(before)
                    && !node.isCluster() && node.vote().mayVote()) {
                restarted[i] = now;
                any = true;
            }
        }
        if (!any) {
            return;
        }
        byte[] ttl = Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII);
        boolean readWrite = lease.type() == LockType.READ || lease.type() == LockType.WRITE;
        LuaScript script = readWrite ? LuaScript.REPAIR_RW : LuaScript.REPAIR;
        // A read or write lease: the writer key and the readers (the first two of its keys), and which of them it is.
        byte[][] keys = readWrite ? java.util.Arrays.copyOf(lease.keys().acquire(), 2) : lease.keys().extend();
        byte[][] args = readWrite ? new byte[][] { lease.tokenBytes(), ttl, (lease.type() == LockType.WRITE) ? WRITER : READER }
                : new byte[][] { lease.tokenBytes(), ttl };
        this.work.track(this.nodes.inProgramOrder(() -> {
            QuorumCall call = this.nodes.newCall("repair");
            for (int i = 0; i < this.nodes.size(); i++) {
                if (restarted[i] != null) {
                    this.nodes.node(i).acquire(script, keys, args, call, i); // refused unsent if it stopped voting
                }
                else {
                    call.record(i, NodeReply.NOT_SENT);
                }
            }
            return call;
        }).thenCompose((call) -> call.allReplies().thenRun(() -> repaired(lease, call, restarted, ttlMillis))));
    }

    /** Counts the nodes a repair wrote the token on again; undoes it where a release started meanwhile. */
    private void repaired(LeaseHandle lease, QuorumCall call, @Nullable String[] restarted, long ttlMillis) {
        long held = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        boolean any = false;
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeReply reply = call.reply(i);
            String runId = restarted[i];
            if (runId == null || reply == null || !reply.granted()) {
                continue;
            }
            lease.expiries().restore(i, call.startNanos() + held - this.nodes.drift(held));
            lease.repaired(i, runId);
            any = true;
            if (!runId.equals(this.repairLogged.getAndSet(i, runId))) {
                logger.log(System.Logger.Level.INFO, "Node " + this.nodes.node(i).name() + " restarted empty (run_id " + runId
                        + ") and votes again after its quarantine: the leases held through it are written there again as they"
                        + " are extended (first: '" + lease.name() + "')");
            }
        }
        if (any && lease.ended()) {
            // A release started meanwhile and may have reached the node first: delete the token again where it still is.
            this.work.track(this.nodes.inProgramOrder(() -> release(lease.type().releaseScript(), lease.keys().release(),
                    new byte[][] { lease.tokenBytes() }, lease.acquisition(), 0)));
        }
    }

    /**
     * Records what an extension's nodes said into the lease's per-node times: a node that keeps the key for
     * {@code r} ms holds it until at least the call's start plus {@code r}, less drift; a node without it is gone.
     * @return how many nodes this call showed to hold the key past now
     */
    private int record(LeaseHandle lease, QuorumCall call) {
        NodeExpiries expiries = lease.expiries();
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
                if (lease.server(i) == null) {
                    lease.heldBy(i, this.nodes.node(i).vote().runId());
                }
                if (until - now > 0) {
                    holding++;
                }
            }
        }
        return holding;
    }

}
