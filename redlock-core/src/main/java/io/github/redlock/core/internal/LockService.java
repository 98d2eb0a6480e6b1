package io.github.redlock.core.internal;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.core.LockInspection;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.engine.LockEngine;
import io.github.redlock.core.internal.guard.RestartGuard;
import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.LockObservations;
import io.github.redlock.core.internal.lease.Revocation;
import io.github.redlock.core.internal.node.NodeConnections;
import io.github.redlock.core.internal.node.NodeVote;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.script.ClusterKeys;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.support.Durations;
import io.github.redlock.core.internal.support.Futures;
import io.github.redlock.core.internal.support.InFlight;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code Redlock} does, behind its public methods: acquisitions in their blocking, throwing and asynchronous
 * forms (the hand-over of a lease to its caller, or back to the nodes when the caller went away), the refusal's
 * exception with every node's answer and the holder, revokes, inspections, the nodes' statuses, and the ordered close.
 * The algorithm itself is the {@link LockEngine}'s; this service holds the parts {@link RedlockAssembly} wired.
 */
public final class LockService {

    private final LockEngine engine;

    private final RedisNodeClient[] nodes;

    private final String keyPrefix;

    /** Whether a node is a Redis Cluster, where lock names must let their companion keys share their hash slot. */
    private final boolean clusterNodes;

    private final NodeConnections connections;

    private final RestartGuard restartGuard;

    private final Revocation revocation;

    /** Observations of acquisitions, or null when the application gave no registry. */
    private final @Nullable LockObservations observations;

    private volatile boolean closed;

    /** Completed when the close is done; set by the first call of {@link #close()}. */
    private final AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();

    /** The thread that runs the close, once it runs. */
    private volatile @Nullable Thread closingThread;

    private LockService(RedlockAssembly parts) {
        this.engine = parts.engine();
        this.observations = parts.observations();
        this.nodes = parts.nodes();
        this.keyPrefix = parts.keyPrefix();
        this.clusterNodes = Arrays.stream(parts.nodes()).anyMatch(RedisNodeClient::isCluster);
        this.connections = parts.connections();
        this.restartGuard = parts.restartGuard();
        this.revocation = parts.revocation();
    }

    /**
     * Wires the parts of a lock from its configuration, and starts connecting to its nodes.
     * @param config the checked configuration
     * @return the service
     */
    public static LockService of(RedlockConfig config) {
        return new LockService(RedlockAssembly.wire(config));
    }

    /** One acquisition that waits on the calling thread: the lease, or null when it could not be acquired in time. */
    public @Nullable RedlockLease tryAcquire(LockName lock, Duration ttl, Duration waitTime) {
        return acquireBlocking(lock, ttl, waitTime).lease();
    }

    /** One acquisition that waits on the calling thread, and throws the refusal with every node's answer. */
    public RedlockLease acquire(LockName lock, Duration ttl, Duration waitTime) {
        Attempt attempt = acquireBlocking(lock, ttl, waitTime);
        if (attempt.lease() != null) {
            return attempt.lease();
        }
        if (attempt.call() != null) {
            // The attempt was decided early; let the stragglers answer (within the node timeout) so that
            // the exception reports every node.
            Futures.await(attempt.call().allReplies(), this.engine.callBoundNanos(), () -> null);
        }
        throw refusal(lock, attempt, waitTime, Futures.await(holderOf(lock, attempt), this.engine.callBoundNanos(), () -> null));
    }

    /**
     * Who holds the lock a refused attempt found taken, read again from the nodes that said so (see
     * {@link Inspector#holderOf}): for an exclusive or write lock, when a quorum refused.
     */
    private CompletableFuture<@Nullable String> holderOf(LockName lock, Attempt attempt) {
        if (lock.type() != LockType.EXCLUSIVE && lock.type() != LockType.WRITE) {
            return CompletableFuture.completedFuture(null);
        }
        LockType.Keys keys = lock.type().keys(this.keyPrefix + lock.key(), null);
        return Inspector.holderOf(this.nodes, attempt.call(), quorum(), keys.extend()[0], this.engine.callBoundNanos());
    }

    /** The failure of an attempt that got no lease, with what every node answered, and who holds the lock if known. */
    private RedlockAcquisitionException refusal(LockName lock, Attempt attempt, Duration waitTime, @Nullable String holder) {
        String detail = attempt.problem();
        if (attempt.attempts() > 1) {
            String tries = attempt.attempts() + " attempts in " + waitTime.toMillis() + " ms";
            detail = (detail != null) ? detail + "; " + tries : tries;
        }
        return new RedlockAcquisitionException(lock.key(), attempt.agreed(), this.engine.quorum(), attempt.failures(), detail, holder);
    }

    /** An acquisition that does not block: a future of the lease, failing with the refusal as the blocking form throws it. */
    public CompletableFuture<RedlockLease> acquireAsync(LockName lock, Duration ttl, Duration waitTime) {
        CompletableFuture<Attempt> attempt = start(lock, ttl, waitTime);
        CompletableFuture<RedlockLease> result = new CompletableFuture<>();
        // One hand-off, as in tryAcquireAsync; a refusal waits for the stragglers (within the node timeouts) first, so
        // that the exception reports every node, as the blocking form's does.
        attempt.whenComplete((done, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            }
            else if (done.lease() != null) {
                if (!result.complete(done.lease())) {
                    done.lease().releaseAsync();
                }
            }
            else {
                CompletableFuture<Void> stragglers = (done.call() == null) ? CompletableFuture.completedFuture(null)
                        : done.call().allReplies().copy().completeOnTimeout(null, this.engine.callBoundNanos(), TimeUnit.NANOSECONDS);
                stragglers.thenCompose((answered) -> holderOf(lock, done)).exceptionally((error) -> null)
                        .thenAccept((holder) -> result.completeExceptionally(refusal(lock, done, waitTime, holder)));
            }
        });
        result.whenComplete((value, failure) -> attempt.cancel(false));
        return result;
    }

    /** An acquisition that does not block: a future of the lease, or of empty when it could not be acquired in time. */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireAsync(LockName lock, Duration ttl, Duration waitTime) {
        CompletableFuture<Attempt> attempt = start(lock, ttl, waitTime);
        CompletableFuture<Optional<RedlockLease>> result = new CompletableFuture<>();
        // One hand-off: the lease goes to the caller, or, if the caller cancelled first, back to the nodes.
        attempt.whenComplete((done, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            }
            else if (!result.complete(Optional.ofNullable(done.lease())) && done.lease() != null) {
                done.lease().releaseAsync();
            }
        });
        // However the caller ends it (cancel, orTimeout, complete): retries stop, and a lease that arrives later is
        // released. After the hand-off above, the attempt is complete already and this does nothing.
        result.whenComplete((value, failure) -> attempt.cancel(false));
        return result;
    }

    /** An operator's revoke of the exclusive lock {@code key} from the instance {@code expectedHolder} only, named, not blank. */
    public int revokeFrom(String key, @Nullable String expectedHolder) {
        if (expectedHolder == null || expectedHolder.isBlank()) {
            throw new RedlockArgumentException("expectedHolder", "expectedHolder must name an instance id, e.g. orders@host-1:4242, was "
                    + ((expectedHolder == null) ? "null" : "'" + expectedHolder + "'"));
        }
        return revoke(key, expectedHolder);
    }

    /** An operator's revoke of the exclusive lock {@code key}, of any holder or of {@code expectedHolder} only. */
    public int revoke(String key, @Nullable String expectedHolder) {
        LockName lock = LockName.exclusive(key);
        if (this.closed) {
            throw new IllegalStateException("Redlock is closed; revoke '" + lock.key() + "' with an open one");
        }
        if (expectedHolder == null || expectedHolder.equals(this.engine.instanceId())) {
            this.engine.revokedHere(lock.key()); // before the nodes free it: none of them is valid while another may take it
        }
        QuorumCall call = this.revocation.revoke(this.keyPrefix + lock.key(), expectedHolder);
        this.engine.track(call.allReplies()); // a close waits for the replies before it closes the connections
        Futures.await(call.allReplies().copy(), this.engine.callBoundNanos(), () -> null);
        return call.granted();
    }

    /** The leases this instance acquired and has not released yet. */
    public List<RedlockLease> heldLeases() {
        return this.engine.leases();
    }

    /** The nodes, as {@code host:port}, each with whether its connection is up now, in configuration order. */
    public Map<String, Boolean> nodeConnections() {
        Map<String, Boolean> connections = new LinkedHashMap<>();
        for (RedisNodeClient node : this.nodes) {
            connections.put(node.name(), node.isConnected());
        }
        return connections;
    }

    /** What each node is to the lock now, in configuration order, by {@code host:port}. */
    public Map<String, NodeStatus> nodeStatuses() {
        Map<String, NodeStatus> statuses = new LinkedHashMap<>();
        long now = System.nanoTime();
        for (RedisNodeClient node : this.nodes) {
            NodeVote.State vote = node.vote().current();
            NodeStatus.State state = NodeStatus.State.DOWN;
            Duration quarantinedFor = Duration.ZERO;
            String reason;
            if (!node.isConnected() || !vote.checked()) {
                reason = node.isConnected() ? vote.reason() : node.notConnectedReason();
            }
            else if (vote.fromNanos() - now > 0) {
                long left = vote.fromNanos() - now;
                state = NodeStatus.State.QUARANTINED;
                // Not an independent master: until a new connection shows otherwise, so "forever".
                quarantinedFor = (left > TimeUnit.DAYS.toNanos(365)) ? ChronoUnit.FOREVER.getDuration() : Duration.ofNanos(left);
                reason = vote.reason();
            }
            else if (!node.vote().recordedNow()) {
                // Its restart record could not be confirmed lately: counts as "no" until a refresh confirms it.
                reason = node.vote().unrecorded();
            }
            else if (node.unconfirmed() != null) {
                // A Sentinel or cluster node whose master no majority confirmed lately: counts as "no".
                reason = String.valueOf(node.unconfirmed());
            }
            else {
                state = NodeStatus.State.UP;
                reason = "";
            }
            statuses.put(node.name(), new NodeStatus(state, quarantinedFor, reason, node.servers(), node.owedReleases()));
        }
        return statuses;
    }

    /** What every node holds of the lock {@code key}, read now. */
    public LockInspection inspect(String key) {
        LockName lock = LockName.exclusive(key);
        return Inspector.inspect(this.nodes, nodeStatuses(), quorum(), lock.key(), this.keyPrefix + lock.key(), this.engine.callBoundNanos());
    }

    /** How many nodes must agree: {@code N/2 + 1}. */
    public int quorum() {
        return this.engine.quorum();
    }

    /** The longest time to live a lease may ask for. */
    public Duration maxTtl() {
        return Duration.ofMillis(this.engine.maxTtlMillis());
    }

    /**
     * Closes the lock, as {@code Redlock.close()} says. A second call waits for the first one's close, but not on a thread
     * whose work that close waits for ({@link #calledFromOwnWork()}), nor within the close itself (a callback of a lease
     * it marks lost): those return at once. Never throws.
     */
    public void close() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> first = this.closing.compareAndExchange(null, mine);
        if (first != null) {
            if (!calledFromOwnWork() && Thread.currentThread() != this.closingThread) {
                Futures.await(first.copy(), this.engine.callBoundNanos() * 3, () -> null);
            }
            return;
        }
        this.closed = true;
        if (calledFromOwnWork()) {
            Thread background = new Thread(() -> closeNow(mine), "redlock-close");
            background.setDaemon(true);
            background.start();
        }
        else {
            closeNow(mine);
        }
    }

    /**
     * Whether this thread runs work that the close waits for: one of the lock's I/O or timer threads (it reads
     * the replies), or a thread completing an acquisition's future inside an attempt (a callback of the caller).
     */
    private static boolean calledFromOwnWork() {
        return Thread.currentThread() instanceof FastThreadLocalThread || InFlight.completingOnThisThread();
    }

    private void closeNow(CompletableFuture<Void> done) {
        this.closingThread = Thread.currentThread(); // callbacks it runs (lost(), failed acquisitions) may close again
        try {
            this.engine.close(this.engine.drainBoundNanos());
            this.restartGuard.close();
            this.connections.close(this.nodes);
        }
        finally {
            done.complete(null);
        }
    }

    @Override
    public String toString() {
        return "Redlock[nodes=" + Arrays.stream(this.nodes).map(RedisNodeClient::name).toList() + ", quorum="
                + this.engine.quorum() + "]";
    }

    private Attempt acquireBlocking(LockName lock, Duration ttl, Duration waitTime) {
        CompletableFuture<Attempt> attempt = start(lock, ttl, waitTime);
        long waitNanos = Durations.waitNanos(waitTime);
        return Futures.await(attempt, waitNanos + this.engine.callBoundNanos() + this.engine.callBoundNanos(),
                () -> Attempt.failed(null, Thread.currentThread().isInterrupted()
                        ? "interrupted while acquiring" : "no decision within the wait time and node timeouts", false));
    }

    private CompletableFuture<Attempt> start(LockName lock, Duration ttl, Duration waitTime) {
        long ttlMillis = Durations.ttlMillis(ttl, this.engine.maxTtlMillis());
        long waitNanos = Durations.waitNanos(waitTime);
        if (this.closed) {
            throw InFlight.closed();
        }
        if (this.clusterNodes) {
            for (String key : (lock.keys() != null) ? lock.keys() : List.of(lock.key())) {
                String unplaceable = ClusterKeys.unplaceable(this.keyPrefix + key);
                if (unplaceable != null) {
                    throw new RedlockArgumentException("key", "key " + unplaceable);
                }
            }
        }
        if (this.observations != null) {
            return this.observations.acquire(lock.type(), lock.key(), ttlMillis, () -> acquire(lock, ttlMillis, waitNanos),
                    (attempt) -> holderOf(lock, attempt));
        }
        return acquire(lock, ttlMillis, waitNanos);
    }

    private CompletableFuture<Attempt> acquire(LockName lock, long ttlMillis, long waitNanos) {
        if (lock.keys() == null) {
            return this.engine.acquire(lock.type(), lock.key(), this.keyPrefix + lock.key(), ttlMillis, waitNanos);
        }
        List<String> redisKeys = lock.keys().stream().map((key) -> this.keyPrefix + key).toList();
        return this.engine.acquireAll(lock.key(), lock.keys(), redisKeys, ttlMillis, waitNanos);
    }

}
