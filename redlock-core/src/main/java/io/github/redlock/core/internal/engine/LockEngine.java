package io.github.redlock.core.internal.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.guard.Fencing;
import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.FollowUps;
import io.github.redlock.core.internal.lease.HeldLeases;
import io.github.redlock.core.internal.lease.Lease;
import io.github.redlock.core.internal.lease.LeaseHandle;
import io.github.redlock.core.internal.lease.LockObservations;
import io.github.redlock.core.internal.lease.NodeExpiries;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.Durations;
import io.github.redlock.core.internal.support.InFlight;
import org.jspecify.annotations.Nullable;

/**
 * The acquisition side of the Redlock algorithm: attempts decided by quorum and validity (with fencing, two
 * rounds), the clean-up on every node after a failed attempt, the handoff of a released lease to a caller of this
 * JVM waiting behind it ({@link Handoffs}, decided as an attempt is), and the start of each acquisition's
 * {@link Retries} (in this JVM's line for the lock, see {@link LocalLines}). Releases and extensions are the
 * {@link FollowUps}'. Everything is asynchronous; the synchronous API blocks on these futures with a bound.
 * An attempt, its fencing round, the handoff and their outcomes depend on each other's ordering on the connections,
 * which is easier to check in one place; the close's drain is its last part.
 */
public final class LockEngine implements Retries.Attempts {

    private static final System.Logger logger = System.getLogger(LockEngine.class.getName());

    private final NodeSet nodes;

    private final FollowUps followUps;

    private final HeldLeases held;

    private final long retryDelayNanos;

    private final double acquisitionBudget;

    /** How long a refused reader or writer stays queued without trying again, in ms. */
    private final byte[] queueMillis;

    /** The nodes' fencing counter, or null when fencing is off. */
    private final byte @Nullable [] counterKey;

    /**
     * This client's id in the nodes' records of who waits for an exclusive key ({@code cleanup.lua}): its own
     * waiters do not stop its handoffs, another client's do.
     */
    private final byte[] clientId = Tokens.newToken().getBytes(StandardCharsets.US_ASCII);

    /** The holder's name in every token of this lock. */
    private final String instanceId;

    /** Wakes waiters when a lock they wait for is released. */
    private final ReleaseMessages messages;

    /** Callers in this JVM that wait for the same exclusive lock: only the first contends. */
    private final LocalLines lines;

    /** Hands a released exclusive lease to the caller of this JVM that waits behind it. */
    private final Handoffs handoffs;

    /** Deletes a failed attempt's entries on every node it may have reached. */
    private final Cleanups cleanups;

    /** The acquisitions not decided yet: a close ends them. */
    private final InFlight acquisitions = new InFlight();

    /** Attempts, releases and clean-ups under way: a close waits for them before the connections close. */
    private final InFlight work = new InFlight();

    /** Set when the close begins: no attempt starts any more, while those under way finish. */
    private volatile boolean closing;

    /**
     * @param observations the observations of releases and extensions, or null when the application gave no registry
     * @param instanceId the holder's name in every token of this lock ({@code <instance-id>:<random>})
     */
    public LockEngine(NodeSet nodes, long retryDelayNanos, double acquisitionBudget, long maxTtlMillis, byte @Nullable [] counterKey,
            ReleaseMessages messages, @Nullable LockObservations observations, String instanceId) {
        this.nodes = nodes;
        this.instanceId = instanceId;
        this.counterKey = counterKey;
        this.messages = messages;
        this.lines = new LocalLines(ForkJoinPool.commonPool());
        this.held = new HeldLeases();
        this.followUps = new FollowUps(nodes, this.held, maxTtlMillis, messages, this.work, this::handOver, observations);
        this.cleanups = new Cleanups(nodes, this.followUps, this.clientId);
        this.handoffs = new Handoffs(this, this.cleanups, nodes, this.followUps, this.work, this.clientId);
        this.retryDelayNanos = retryDelayNanos;
        this.acquisitionBudget = acquisitionBudget;
        // Longer than the largest jittered retry delay plus the attempts' node timeouts.
        long queueMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(3 * retryDelayNanos + 4 * nodes.nodeTimeoutNanos()));
        this.queueMillis = Long.toString(queueMillis).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public int quorum() {
        return this.nodes.quorum();
    }

    @Override
    public String newToken() {
        return Tokens.newToken(this.instanceId);
    }

    /** The holder's name in every token of this lock. */
    public String instanceId() {
        return this.instanceId;
    }

    public long callBoundNanos() {
        return this.nodes.callBoundNanos();
    }

    /** How long a close waits for the work under way: an attempt, its fencing round and its release, and slack. */
    public long drainBoundNanos() {
        return 2 * this.nodes.nodeTimeoutNanos() + this.nodes.callBoundNanos();
    }

    public long maxTtlMillis() {
        return this.followUps.maxTtlMillis();
    }

    /** The leases not released yet (they may have expired). */
    public List<RedlockLease> leases() {
        return this.held.snapshot();
    }

    /**
     * Marks the exclusive leases of this instance on {@code key} lost at once (a lock on several keys among them
     * {@code key} included): an operator revokes the lock through this instance, so the nodes are about to drop it.
     * @param key the lock's name, without the prefix
     */
    public void revokedHere(String key) {
        for (RedlockLease lease : this.held.snapshot()) {
            LockType type = Lease.of(lease).handle().type();
            if ((type == LockType.EXCLUSIVE || type == LockType.MULTI) && lease.keys().contains(key)) {
                Lease.of(lease).revoked("it was revoked through this instance (Redlock.revoke): the nodes no longer hold it");
            }
        }
    }

    @Override
    public boolean isClosed() {
        return this.closing;
    }

    @Override
    public <T> CompletableFuture<T> track(CompletableFuture<T> underWay) {
        return this.work.track(underWay);
    }

    @Override
    public ReleaseMessages.Subscription listen(byte[][] channels, ReleaseMessages.Waiter waiter) {
        return this.messages.listenAll(channels, waiter);
    }

    @Override
    public void follow(RedlockLease holder, Retries successor) {
        this.handoffs.follow(Lease.of(holder).handle(), successor);
    }

    @Override
    public void unfollow(RedlockLease holder, Retries successor) {
        this.handoffs.unfollow(Lease.of(holder).handle(), successor);
    }

    @Override
    public int nodeCount() {
        return this.nodes.size();
    }

    @Override
    public long retryDelayNanos() {
        return this.retryDelayNanos;
    }

    /**
     * Stops accepting acquisitions and ends those under way (their futures fail: the lock was closed); waits,
     * at most {@code boundNanos}, for the attempts in flight and for every release and clean-up (a lease that an
     * attempt in flight still obtains is released, as its caller is gone); then stops every held lease's
     * auto-extension and loss watch: each is lost (its {@code lost()} completes), as nothing extends it any more.
     * @return whether everything under way finished within the bound
     */
    public boolean close(long boundNanos) {
        this.closing = true;
        for (CompletableFuture<?> waiting : this.acquisitions.snapshot()) {
            waiting.completeExceptionally(new IllegalStateException("Redlock is closed: it was closed while this caller waited "
                    + "for the lock; a lease that an attempt under way obtained is released"));
        }
        boolean quiet = this.work.awaitQuiet(boundNanos);
        if (!quiet) {
            logger.log(System.Logger.Level.WARNING, "Closing the Redlock while " + this.work.pending() + " attempt(s), release(s) or "
                    + "clean-up(s) were still unanswered after " + Durations.millis(boundNanos) + ": keys they leave expire with their ttl");
        }
        this.held.close();
        this.messages.close();
        return quiet;
    }

    /**
     * Makes attempts until one acquires the lock or the wait time has passed. Between attempts it waits for a
     * release message of the lock (see {@link ReleaseMessages}), for the holder's key to expire where the nodes
     * said when, or for a jittered delay, whichever comes first. Cancelling the returned future stops the
     * retries; a lease acquired after the cancellation is released.
     * @return the last attempt: with a lease, or the facts of its failure
     */
    public CompletableFuture<Attempt> acquire(LockType type, String key, String redisKey, long ttlMillis, long waitNanos) {
        return acquire(type, key, type.keys(redisKey, this.counterKey), (type == LockType.EXCLUSIVE) ? redisKey : null, ttlMillis,
                waitNanos);
    }

    /**
     * Acquires a lock on several keys at once, as {@link #acquire(LockType, String, String, long, long)} does one.
     * @param key the keys as the caller named them, joined, for the reports
     * @param names the keys as the caller named them, distinct and sorted
     * @param redisKeys the Redis keys, in the order of {@code names}
     */
    public CompletableFuture<Attempt> acquireAll(String key, List<String> names, List<String> redisKeys, long ttlMillis, long waitNanos) {
        return acquire(LockType.MULTI, key, LockType.multiKeys(names, redisKeys, this.counterKey), null, ttlMillis, waitNanos);
    }

    /** @param lineKey the local line to wait in (an exclusive lock's key), or null to contend at once */
    private CompletableFuture<Attempt> acquire(LockType type, String key, LockType.Keys keys, @Nullable String lineKey, long ttlMillis,
            long waitNanos) {
        // Tracked before the closed check: a close either ends this acquisition, or is seen here.
        CompletableFuture<Attempt> result = this.acquisitions.track(new CompletableFuture<>());
        if (this.closing) {
            result.completeExceptionally(InFlight.closed());
            return result;
        }
        Retries retries = new Retries(this, type, key, keys, ttlMillis, System.nanoTime() + waitNanos, waitNanos > 0, result);
        if (waitNanos <= 0) {
            retries.run();
            return result;
        }
        LocalLines.Place place = (lineKey != null) ? this.lines.join(lineKey, retries.turn) : LocalLines.Place.UNLINED;
        if (lineKey == null || place == LocalLines.Place.UNLINED) {
            retries.start();
            return result;
        }
        result.whenComplete((attempt, failure) -> this.lines.leave(lineKey, retries.turn, (failure == null) ? attempt.lease() : null));
        RedlockLease holder = (place == LocalLines.Place.FIRST) ? this.held.holderOf(key) : null;
        if (holder != null) {
            // Held in this JVM: its release wakes this caller at once; asking the nodes before would be refused.
            retries.startBehind(holder);
        }
        else if (place == LocalLines.Place.FIRST) {
            retries.start();
        }
        else {
            io.netty.util.Timeout outOfTime = this.nodes.schedule((timeout) -> retries.outOfTime(), waitNanos);
            result.whenComplete((attempt, failure) -> outOfTime.cancel());
        }
        return result;
    }

    /**
     * One attempt: SET NX PX (or the read or write lock's script) to every node at once, decided as soon as
     * the outcome is known. The lock is held iff a quorum agreed and {@code validity = ttl - elapsed - drift > 0}
     * (and, when configured, the attempt stayed within the acquisition budget). Otherwise the lease's
     * entries are deleted on every node; a reader or writer that will try again keeps its place in the queue.
     */
    @Override
    public CompletableFuture<Attempt> attempt(LockType type, String key, LockType.Keys keys, long ttlMillis,
            long deadlineNanos, boolean waiting, @Nullable String acquisitionToken) {
        // The exclusive lock, on one key or several, draws a token per attempt. A read or write lock keeps one for
        // the acquisition: it is also its place in the nodes' queue, which must survive from one attempt to the next.
        // Either way each attempt's clean-up reaches every node before the next attempt's command, on the same connection.
        String token = (acquisitionToken != null) ? acquisitionToken : newToken();
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        QuorumCall call = this.nodes.newCall(type.command());
        LuaScript script = type.acquireScript(keys.fence() != null, waiting);
        if (script == null) {
            for (int i = 0; i < this.nodes.size(); i++) {
                this.nodes.node(i).setIfAbsent(keys.acquire()[0], tokenBytes, ttlMillis, call, i);
            }
        }
        else {
            byte[][] args = { tokenBytes, Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII), this.queueMillis };
            for (int i = 0; i < this.nodes.size(); i++) {
                this.nodes.node(i).acquire(script, keys.acquire(), args, call, i);
            }
        }
        return call.decision().thenCompose((reached) -> {
            String problem = reached ? validityProblem(call.elapsedNanos(), ttlMillis) : null;
            if (reached && problem == null && keys.fence() != null) {
                return confirmFencing(type, key, keys, token, call, ttlMillis, deadlineNanos);
            }
            if (reached && problem == null) {
                return CompletableFuture.completedFuture(granted(type, key, keys, token, call, null, ttlMillis, 0));
            }
            return this.cleanups.failed(type, keys, tokenBytes, call, call, problem, ttlMillis, deadlineNanos, Cleanups.Lock.NOT_FREED);
        });
    }

    /** The handoff of a released lease, if a caller of this JVM waits behind it ({@link Handoffs#handOver}); else null. */
    private @Nullable QuorumCall handOver(LeaseHandle lease, long owedUntilNanos) {
        return this.handoffs.handOver(lease, owedUntilNanos);
    }

    /**
     * The second round of a fenced acquisition: the candidate token (the largest counter of the granting nodes)
     * is written back to the nodes that hold the key; granted if a quorum confirmed within validity.
     */
    private CompletableFuture<Attempt> confirmFencing(LockType type, String key, LockType.Keys keys, String token,
            QuorumCall acquisition, long ttlMillis, long deadlineNanos) {
        long candidate = Fencing.candidate(acquisition, this.nodes.size());
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        QuorumCall confirmation = Fencing.confirm(this.nodes, keys, tokenBytes, candidate, acquisition);
        return confirmation.decision().thenCompose((confirmed) -> {
            String problem = confirmed ? validityProblem(System.nanoTime() - acquisition.startNanos(), ttlMillis)
                    : "the fencing token " + candidate + " was confirmed by " + confirmation.granted() + " node(s) of the "
                            + this.nodes.quorum() + " needed (the others no longer held the key, or did not answer)";
            if (problem == null) {
                return CompletableFuture.completedFuture(granted(type, key, keys, token, acquisition, confirmation, ttlMillis, candidate));
            }
            return this.cleanups.failed(type, keys, tokenBytes, acquisition, confirmed ? acquisition : confirmation, problem, ttlMillis,
                    deadlineNanos, Cleanups.Lock.NOT_FREED);
        });
    }

    /** Why a quorum's grant came too late to hold the lock, or null: validity ran out, or the budget was spent. */
    @Nullable String validityProblem(long elapsed, long ttlMillis) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long drift = this.nodes.drift(ttlNanos);
        if (ttlNanos - elapsed - drift <= 0) {
            return "validity ran out: the attempt took " + Durations.millis(elapsed) + " of the " + ttlMillis
                    + " ms ttl (drift " + Durations.millis(drift) + ")";
        }
        if (elapsed > ttlNanos * this.acquisitionBudget) {
            return "the attempt took " + Durations.millis(elapsed) + ", more than the acquisition budget of "
                    + Durations.millis((long) (ttlNanos * this.acquisitionBudget));
        }
        return null;
    }

    /**
     * The lease of an attempt that holds the lock: each node that granted holds the key until the attempt's
     * start plus the ttl, less drift; a node that said no to the fencing token's confirmation holds nothing.
     */
    Attempt granted(LockType type, String key, LockType.Keys keys, String token, QuorumCall acquisition,
            @Nullable QuorumCall confirmation, long ttlMillis, long fencingToken) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        NodeExpiries expiries = new NodeExpiries(this.nodes.size(), acquisition.startNanos());
        @Nullable String[] servers = new String[this.nodes.size()];
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeReply reply = acquisition.reply(i);
            NodeReply confirmed = (confirmation != null) ? confirmation.reply(i) : null;
            if (reply != null && reply.granted() && (confirmed == null || confirmed.outcome() != NodeReply.Outcome.DENIED)) {
                expiries.raise(i, acquisition.startNanos() + ttlNanos - this.nodes.drift(ttlNanos));
                // The process checked last: the one that granted, or, if the node restarted meanwhile and was checked
                // already, a later one, which then never counts as restarted since (a repair is never owed wrongly).
                servers[i] = this.nodes.node(i).vote().runId();
            }
        }
        byte[] tokenBytes = token.getBytes(StandardCharsets.US_ASCII);
        LeaseHandle handle = new LeaseHandle(type, key, keys, tokenBytes, acquisition, expiries, this.nodes.quorum(), ttlMillis, fencingToken,
                servers);
        // Grants after the decision hold the token too, uncounted until an extension confirms them: their processes are
        // noted as they arrive, so that a node that restarts before the first extension is still repaired.
        acquisition.allReplies().thenRun(() -> {
            for (int i = 0; i < this.nodes.size(); i++) {
                NodeReply reply = acquisition.reply(i);
                if (servers[i] == null && reply != null && reply.granted() && confirmation == null) {
                    handle.heldBy(i, this.nodes.node(i).vote().runId());
                }
            }
        });
        RedlockLease lease = new Lease(this.followUps, handle, key, token);
        this.held.add(lease);
        return Attempt.acquired(lease);
    }

}
