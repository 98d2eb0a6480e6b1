package io.github.redlock.core.internal.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.support.ClusterUri;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * The masters of a Redis Cluster node and the connection to each: the cluster's view ({@code CLUSTER NODES}, asked of a
 * master or a seed), which master serves each hash slot, and one {@link NodeConnection} per master, each the
 * connection a standalone node has (its own retries, scripts, and Lettuce's reconnection). A command goes to the
 * master that this view says serves its first key's slot, and only there: the lock follows no redirection, so a yes
 * only ever comes from a master that the node's check saw. Any change of the view (a failover, slots moved) counts as
 * a dropped connection of the whole node ({@code onDown}: it does not vote until checked again), and is applied after
 * that, so that a yes to a command sent before the change and routed after it counts as an error; the node's check
 * then reads every master. A reply that says the view is stale ({@code MOVED}, {@code ASK}, {@code CLUSTERDOWN}, a
 * write refused as {@code READONLY}) reads it again, as does a master's lost connection, every second while one is
 * missing (a dead master is replaced by its replica without anyone telling the lock).
 * <p>
 * A master cut off from its cluster still answers as the master of its slots until its own node timeout, while its
 * replica may serve them on the other side: the node votes only while the other masters confirm its view
 * ({@link #confirms()}), each asked {@code CLUSTER NODES} every {@link SentinelWatch#ASK_EVERY_MILLIS} ms; a majority
 * of them with another view makes it read the view again from one of them (docs/nodes.md, "A deposed master counts
 * only while the other masters confirm the view").
 */
final class ClusterShards {

    private static final System.Logger logger = System.getLogger(ClusterShards.class.getName());

    private static final long REDISCOVER_MILLIS = 1000;

    private static final long DISCOVER_TIMEOUT_MILLIS = 2000;

    /** The shortest time between two reads of the view that stale replies ask for. */
    private static final long MIN_DISCOVERY_INTERVAL_MILLIS = 100;

    private final NodeConnector connector;

    private final ClusterUri uri;

    private final EventExecutorGroup scheduler;

    /** Run when every master's connection is ready: the node is checked. */
    private final Runnable onReady;

    /** Run when a master's connection drops or the view changes: the node stops voting until checked. */
    private final Runnable onDown;

    private volatile View view = View.NONE;

    /** Whether a read of the view runs: one at a time. */
    private final AtomicBoolean discovering = new AtomicBoolean();

    /** Whether a read of the view is scheduled. */
    private final AtomicBoolean rediscoverPending = new AtomicBoolean();

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private volatile boolean closed;

    /** Why the last read of the view failed, while none succeeded since; else null. */
    private volatile @Nullable String discoveryFailure = "not connected yet";

    private volatile @Nullable Throwable lastFailure;

    /** When the last read of the view began ({@link System#nanoTime()}). */
    private volatile long lastDiscoveryNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);

    /**
     * How fresh the other masters' confirmation of the view must be for the node to vote: as for a Sentinel node's
     * sentinels ({@link SentinelWatch#CONFIRMATION_BOUND_NANOS}).
     */
    static final long CONFIRMATION_BOUND_NANOS = SentinelWatch.CONFIRMATION_BOUND_NANOS;

    /**
     * A JVM system property that, set to {@code true}, turns the other masters' confirmation off (every cluster node
     * votes as if its view were confirmed): only for the control of a fault test that must show the hazard it guards
     * against. Never set it in production.
     */
    static final String UNCONFIRMED_PROPERTY = "redlock.internal.unconfirmed-clusters";

    /** Whether {@link #UNCONFIRMED_PROPERTY} turned the confirmation off, read once. */
    private static final boolean UNCONFIRMED = Boolean.getBoolean(UNCONFIRMED_PROPERTY);

    /** Per master address: its latest answer to {@code CLUSTER NODES} asked for the confirmation, as a view signature. */
    private final Map<String, SentinelWatch.Answer> answers = new java.util.concurrent.ConcurrentHashMap<>();

    /** Per master address: whether its question awaits an answer (one at a time). */
    private final Map<String, AtomicBoolean> asking = new java.util.concurrent.ConcurrentHashMap<>();

    /** The view the other masters confirmed, and until when; {@code view} null: none. */
    private volatile Confirmed confirmed = new Confirmed(null, 0);

    private volatile long lastFollowNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);

    private volatile io.netty.util.concurrent.@Nullable ScheduledFuture<?> askingTask;

    /** A view the other masters confirmed, and until when ({@link System#nanoTime()}). */
    private record Confirmed(@Nullable View view, long untilNanos) {
    }

    ClusterShards(NodeConnector connector, ClusterUri uri, EventExecutorGroup scheduler, Runnable onReady, Runnable onDown) {
        this.connector = connector;
        this.uri = uri;
        this.scheduler = scheduler;
        this.onReady = onReady;
        this.onDown = onDown;
    }

    /**
     * Reads the view from the seeds and connects to every master.
     * @return a future completed once the first attempt decided (whether every master connected or not)
     */
    CompletableFuture<Void> connect() {
        if (this.askingTask == null) {
            this.askingTask = this.scheduler.scheduleAtFixedRate(this::askAll, SentinelWatch.ASK_EVERY_MILLIS,
                    SentinelWatch.ASK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
        }
        discover("connecting").whenComplete((changed, failure) -> {
            if (failure != null) {
                scheduleRediscovery();
                this.firstAttempt.complete(null);
                return;
            }
            List<CompletableFuture<Void>> attempts = this.view.shards.stream().map((shard) -> shard.firstAttempt).toList();
            CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).whenComplete((done, ignored) -> this.firstAttempt.complete(null));
        });
        return this.firstAttempt;
    }

    /**
     * Whether the other masters confirm the current view: for every master of it, a majority of the cluster's masters
     * other than it ({@code floor((m - 1) / 2) + 1} of the {@code m - 1}) answered {@code CLUSTER NODES}, to questions sent
     * within {@link #CONFIRMATION_BOUND_NANOS}, with this view's masters and slots. A master never confirms itself: a
     * deposed master cut off from the cluster still names itself. A volatile read and a clock read.
     */
    boolean confirms() {
        if (UNCONFIRMED) {
            return true;
        }
        Confirmed current = this.confirmed;
        return current.view() == this.view && current.view() != null && current.untilNanos() - System.nanoTime() > 0;
    }

    /** Why the node may not vote now for want of the other masters' confirmation, for refusals and its status. */
    String unconfirmed() {
        View current = this.view;
        int masters = current.shards.size();
        if (masters < 2) {
            return "no other master of the cluster can confirm that its one master is still the master (a cluster node needs "
                    + "at least two masters, three for failovers)";
        }
        int needed = (masters - 1) / 2 + 1;
        return "no majority (" + needed + " of the " + (masters - 1) + " others, for each master) of the cluster's masters confirmed "
                + "within the last " + TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS) + " ms that its view (" + current.signature
                + ") is theirs (masters unreachable, or a failover)";
    }

    /**
     * A future completed with true as soon as the other masters confirm the current view ({@link #confirms()}), or with
     * false after {@code timeoutMillis}.
     */
    CompletableFuture<Boolean> confirmed(long timeoutMillis) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        awaitConfirmed(deadline, result);
        return result;
    }

    private void awaitConfirmed(long deadlineNanos, CompletableFuture<Boolean> result) {
        if (confirms()) {
            result.complete(true);
        }
        else if (this.closed || deadlineNanos - System.nanoTime() <= 0) {
            result.complete(false);
        }
        else { // answers come every ASK_EVERY_MILLIS: look again as often, with a deadline
            this.scheduler.schedule(() -> awaitConfirmed(deadlineNanos, result), 50, TimeUnit.MILLISECONDS);
        }
    }

    /** Asks every master of the view for its view, each on its own connection, one question at a time each. */
    private void askAll() {
        View current = this.view;
        for (Shard shard : current.shards) {
            RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
            AtomicBoolean busy = this.asking.computeIfAbsent(shard.address, (address) -> new AtomicBoolean());
            if (async == null || !shard.connection.isConnected() || !busy.compareAndSet(false, true)) {
                continue;
            }
            long sentAt = System.nanoTime();
            CompletableFuture<String> reply;
            try {
                reply = async.clusterNodes().toCompletableFuture();
            }
            catch (RuntimeException ex) {
                reply = CompletableFuture.failedFuture(ex);
            }
            RedisURI source = shard.uri;
            reply.orTimeout(TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS), TimeUnit.MILLISECONDS).whenComplete((text, failure) -> {
                busy.set(false);
                if (failure == null && text != null) {
                    String signature;
                    try {
                        signature = View.parse(text, source).signature;
                    }
                    catch (RuntimeException ex) {
                        signature = "";
                    }
                    answered(shard.address, new SentinelWatch.Answer(sentAt, signature));
                }
            });
        }
        this.asking.keySet().removeIf((address) -> current.shards.stream().noneMatch((shard) -> shard.address.equals(address)));
        this.answers.keySet().removeIf((address) -> current.shards.stream().noneMatch((shard) -> shard.address.equals(address)));
    }

    /** Keeps a master's answer if it is newer than the one kept, and works out the confirmation again. */
    private void answered(String address, SentinelWatch.Answer answer) {
        this.answers.merge(address, answer, (before, after) -> (after.sentAtNanos() - before.sentAtNanos() > 0) ? after : before);
        View current = this.view;
        long until = confirmedUntil(current, this.answers);
        this.confirmed = new Confirmed((until != Long.MIN_VALUE) ? current : null, until);
        // A majority of the masters names another view than this node's: read it again, from one of them.
        Map<String, Integer> bySignature = new HashMap<>();
        this.answers.values().forEach((each) -> bySignature.merge(each.address(), 1, Integer::sum));
        int majority = current.shards.size() / 2 + 1;
        bySignature.forEach((signature, count) -> {
            if (count >= majority && !signature.isEmpty() && !signature.equals(current.signature)
                    && System.nanoTime() - this.lastFollowNanos > TimeUnit.SECONDS.toNanos(1)) {
                this.lastFollowNanos = System.nanoTime();
                String from = this.answers.entrySet().stream().filter((entry) -> entry.getValue().address().equals(signature))
                        .map(Map.Entry::getKey).findFirst().orElse(null);
                discoverFrom(from, "a majority of the cluster's masters has another view: " + signature);
            }
        });
    }

    /**
     * Until when ({@link System#nanoTime()}) the masters' answers confirm {@code view} for every master of it (see
     * {@link #confirms()}), or {@link Long#MIN_VALUE} when they do not.
     */
    static long confirmedUntil(View view, Map<String, SentinelWatch.Answer> answers) {
        int masters = view.shards.size();
        if (masters < 2) {
            return Long.MIN_VALUE;
        }
        int needed = (masters - 1) / 2 + 1;
        long until = Long.MAX_VALUE;
        for (Shard shard : view.shards) {
            List<Long> sent = new ArrayList<>();
            for (Shard other : view.shards) {
                SentinelWatch.Answer answer = answers.get(other.address);
                if (other != shard && answer != null && answer.address().equals(view.signature)) {
                    sent.add(answer.sentAtNanos());
                }
            }
            if (sent.size() < needed) {
                return Long.MIN_VALUE;
            }
            sent.sort((a, b) -> Long.compare(b - a, 0));
            long shardUntil = sent.get(needed - 1) + CONFIRMATION_BOUND_NANOS;
            until = (shardUntil - until < 0) ? shardUntil : until;
        }
        return until;
    }

    /** The connection to the master that serves the key's slot in the current view, or null when none does. */
    @Nullable NodeConnection route(byte[] key) {
        NodeConnection[] bySlot = this.view.bySlot;
        return (bySlot != null) ? bySlot[SlotHash.getSlot(key)] : null;
    }

    /** The masters of the current view, in slot order, each as {@code host:port slots <ranges>}. */
    List<String> servers() {
        return this.view.servers;
    }

    /** Whether the view is known and every master's connection is up. */
    boolean isConnected() {
        View current = this.view;
        return !current.shards.isEmpty() && current.shards.stream().allMatch((shard) -> shard.connection.isConnected());
    }

    /** Whether the view is known and every master's connection is up with its scripts loaded. */
    private boolean isReady() {
        View current = this.view;
        return !current.shards.isEmpty() && current.shards.stream().allMatch((shard) -> shard.connection.isConnected()
                && shard.connection.scriptsLoaded());
    }

    /** The reply of the node while a master it needs is not connected, with why. */
    NodeReply notConnected() {
        String failure = this.discoveryFailure;
        View current = this.view;
        if (current.shards.isEmpty()) {
            return NodeReply.notConnected((failure != null) ? failure : "no master in the cluster's view");
        }
        for (Shard shard : current.shards) {
            if (!shard.connection.isConnected()) {
                return NodeReply.notConnected("master " + shard.address + ": " + shard.connection.notConnected().reason());
            }
        }
        return NodeReply.notConnected((current.uncovered != null) ? current.uncovered : "not connected");
    }

    /** Why the last attempt to reach the cluster failed, while it is not connected; else null. */
    @Nullable Throwable lastFailure() {
        for (Shard shard : this.view.shards) {
            Throwable failure = shard.connection.lastFailure();
            if (failure != null) {
                return failure;
            }
        }
        return this.view.shards.isEmpty() ? this.lastFailure : null;
    }

    /** Lettuce failed to reconnect a connection to {@code remote}: the master there says why, if it is one of the view's. */
    void reconnectFailed(@Nullable SocketAddress remote, Throwable cause) {
        if (remote instanceof InetSocketAddress address) {
            for (Shard shard : this.view.shards) {
                if (!shard.connection.isConnected() && shard.uri.getPort() == address.getPort()
                        && shard.uri.getHost().equals(address.getHostString())) {
                    shard.connection.reconnectFailed(cause);
                }
            }
        }
    }

    /**
     * What every master of the view says of itself, as one server: the {@code run_id}s, sorted, joined by {@code +} (any
     * master that restarted or was replaced changes it; slots moved between the same masters do not), the shortest uptime, a master only if all are, promoted
     * if one is, and never durable (no marker proves a whole cluster's data: a restart is always quarantined). Reads
     * the view first: a view that changed fails the check, and the change checks the node again.
     */
    CompletableFuture<ServerInfo> serverInfo() {
        View before = this.view;
        return discover("checking the node").thenCompose((changed) -> {
            View current = this.view;
            if (changed || current != before) {
                throw new CompletionException(new IllegalStateException("the cluster's view changed during the check; checked again"));
            }
            if (current.uncovered != null) {
                throw new CompletionException(new IllegalStateException(current.uncovered));
            }
            List<CompletableFuture<ServerInfo>> infos = new ArrayList<>();
            for (Shard shard : current.shards) {
                RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
                if (async == null || !shard.connection.isConnected()) {
                    throw new CompletionException(new IllegalStateException("master " + shard.address + " is not connected"));
                }
                infos.add(async.info("server").toCompletableFuture().thenCombine(async.info("replication").toCompletableFuture(),
                        (server, replication) -> ServerInfo.parse(server + "\n" + replication, false)));
            }
            return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).thenApply((done) -> {
                java.util.TreeSet<String> runIds = new java.util.TreeSet<>();
                long uptime = Long.MAX_VALUE;
                boolean master = true;
                boolean promoted = false;
                for (CompletableFuture<ServerInfo> each : infos) {
                    ServerInfo info = each.join();
                    runIds.add(info.runId());
                    uptime = Math.min(uptime, info.uptimeSeconds());
                    master &= info.master();
                    promoted |= info.promoted();
                }
                return new ServerInfo(String.join("+", runIds), uptime, master, false, promoted);
            });
        });
    }

    /**
     * A reply said the view is stale, or the node must follow a change: reads the view again (at once, or after the
     * read that runs).
     */
    void rediscover(String reason) {
        if (System.nanoTime() - this.lastDiscoveryNanos < TimeUnit.MILLISECONDS.toNanos(MIN_DISCOVERY_INTERVAL_MILLIS)) {
            // A burst of stale replies (every command in flight to a demoted master answers MOVED) reads the view once.
            scheduleRediscovery(MIN_DISCOVERY_INTERVAL_MILLIS);
            return;
        }
        discover(reason).whenComplete((changed, failure) -> {
            if (failure != null || !isConnected()) {
                scheduleRediscovery();
            }
        });
    }

    /** A master's connection dropped: the node stops voting, and the view is read again until every master is back. */
    private void shardDown(Shard shard) {
        if (this.view.shards.contains(shard)) {
            this.onDown.run();
            scheduleRediscovery();
        }
    }

    /** A master's connection is ready: once all are, the node is checked. */
    private void shardReady(Shard shard) {
        if (this.view.shards.contains(shard) && isReady()) {
            this.onReady.run();
        }
    }

    private void scheduleRediscovery() {
        scheduleRediscovery(REDISCOVER_MILLIS);
    }

    private void scheduleRediscovery(long delayMillis) {
        if (!this.closed && this.rediscoverPending.compareAndSet(false, true)) {
            this.scheduler.schedule(() -> {
                this.rediscoverPending.set(false);
                if (!this.closed) {
                    discover("a master is not connected, or answered that the view is stale").whenComplete((changed, failure) -> {
                        if (failure != null || !isConnected()) {
                            scheduleRediscovery();
                        }
                    });
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reads the view (from a connected master, else from each seed in turn) and applies it if it changed.
     * @return whether it changed; failed when no server answered
     */
    private CompletableFuture<Boolean> discover(String reason) {
        return discover(null, reason);
    }

    /** Reads the view from the given master first ({@code host:port} of a master of the view), as {@link #discover(String)}. */
    private void discoverFrom(@Nullable String address, String reason) {
        discover(address, reason).whenComplete((changed, failure) -> {
            if (failure != null || !isConnected()) {
                scheduleRediscovery();
            }
        });
    }

    private CompletableFuture<Boolean> discover(@Nullable String preferred, String reason) {
        if (this.closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("closed"));
        }
        if (!this.discovering.compareAndSet(false, true)) {
            scheduleRediscovery(MIN_DISCOVERY_INTERVAL_MILLIS); // the read that runs may predate what prompted this one
            return CompletableFuture.completedFuture(false);
        }
        this.lastDiscoveryNanos = System.nanoTime();
        // Asked of a connected master on its own connection first; a seed on a connection of its own only when none is.
        CompletableFuture<ViewText> read = null;
        List<Shard> sources = new ArrayList<>(this.view.shards);
        sources.sort((a, b) -> Boolean.compare(!a.address.equals(preferred), !b.address.equals(preferred)));
        for (Shard shard : sources) {
            RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
            if (async != null && shard.connection.isConnected()) {
                RedisURI source = shard.uri;
                read = async.clusterNodes().toCompletableFuture().orTimeout(DISCOVER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                        .thenApply((text) -> new ViewText(text, source));
                break;
            }
        }
        List<RedisURI> seeds = this.uri.seeds();
        read = (read != null) ? read.handle((text, failure) -> (failure == null) ? CompletableFuture.completedFuture(text)
                : readView(seeds, 0, failure)).thenCompose((next) -> next) : readView(seeds, 0, null);
        return read.thenApply((text) -> {
            this.discoveryFailure = null;
            this.lastFailure = null;
            return apply(View.parse(text.view, text.source), reason);
        }).whenComplete((changed, failure) -> {
            this.discovering.set(false);
            if (failure != null) {
                Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
                this.lastFailure = cause;
                this.discoveryFailure = "cannot read the cluster's view from any seed or master: " + Uris.describe(cause);
            }
        });
    }

    private record ViewText(String view, RedisURI source) {
    }

    /** Asks the seeds in turn for {@code CLUSTER NODES}, each on a connection of its own, until one answers. */
    private CompletableFuture<ViewText> readView(List<RedisURI> sources, int index, @Nullable Throwable last) {
        if (this.closed) { // the lock closed while a read ran: its resources may be gone, so no next seed is tried
            return CompletableFuture.failedFuture(new IllegalStateException("closed"));
        }
        if (index >= sources.size()) {
            return CompletableFuture.failedFuture((last != null) ? last : new IllegalStateException("no seed node"));
        }
        RedisURI source = sources.get(index);
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> opening;
        try {
            opening = this.connector.connect(source).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            opening = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<ViewText> read = new CompletableFuture<>();
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> opened = opening;
        opened.whenComplete((connection, failure) -> {
            if (failure != null || connection == null) {
                read.completeExceptionally((failure != null) ? failure : new IllegalStateException("no connection"));
                return;
            }
            connection.async().clusterNodes().whenComplete((text, refused) -> {
                connection.closeAsync();
                if (refused != null || text == null) {
                    read.completeExceptionally((refused != null) ? refused : new IllegalStateException("no answer"));
                }
                else {
                    read.complete(new ViewText(text, source));
                }
            });
        });
        return read.orTimeout(DISCOVER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).handle((text, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(text);
            }
            opened.thenAccept(StatefulRedisConnection::closeAsync); // a connection that opens, or answers, too late
            return readView(sources, index + 1, failure);
        }).thenCompose((next) -> next);
    }

    /** Applies a view read just now, when it differs from the current one; returns whether it did. */
    private boolean apply(View.Parsed parsed, String reason) {
        View current = this.view;
        if (this.closed || parsed.signature.equals(current.signature)) {
            return false;
        }
        Map<String, Shard> kept = new HashMap<>();
        current.shards.forEach((shard) -> kept.put(shard.address, shard));
        List<Shard> shards = new ArrayList<>();
        List<Shard> opened = new ArrayList<>();
        NodeConnection[] bySlot = new NodeConnection[SlotHash.SLOT_COUNT];
        for (View.Master master : parsed.masters) {
            Shard shard = kept.remove(master.address());
            if (shard == null) {
                shard = new Shard(master.address(), this.uri.server(master.host(), master.port()));
                opened.add(shard);
            }
            shards.add(shard);
            for (int slot : master.slots()) {
                bySlot[slot] = shard.connection;
            }
        }
        boolean changed = !current.shards.isEmpty();
        if (changed) {
            // First the node stops voting, then commands go by the new view: a yes from a master it did not check, to a
            // command that saw the node voting before, arrives in a later epoch and counts as an error.
            logger.log(System.Logger.Level.INFO, "Redis node " + this.uri.name() + " has a new cluster view (" + reason + "): "
                    + parsed.signature + "; it is checked again before it votes");
            this.onDown.run();
        }
        this.view = new View(List.copyOf(shards), bySlot, parsed.signature, parsed.uncovered,
                parsed.masters.stream().map((master) -> master.address() + " slots " + View.ranges(master.slots())).toList());
        if (changed) {
            // And again once the view is the new one: a check that began between the two read the old view's masters,
            // and a command that read the route of the old view meanwhile may reach a master of neither.
            this.onDown.run();
        }
        kept.values().forEach((gone) -> gone.connection.close());
        if (this.closed) { // closed meanwhile: close() may not have seen the new masters
            shards.forEach((shard) -> shard.connection.close());
            return true;
        }
        opened.forEach(Shard::connect);
        if (opened.isEmpty() && isReady()) {
            this.onReady.run(); // no new connection will say it is ready: the node is checked now
        }
        return true;
    }

    /** Closes every master's connection and stops reading the view. */
    CompletableFuture<Void> close() {
        this.closed = true;
        io.netty.util.concurrent.ScheduledFuture<?> task = this.askingTask;
        if (task != null) {
            task.cancel(false);
        }
        return CompletableFuture.allOf(this.view.shards.stream().map((shard) -> shard.connection.close()).toArray(CompletableFuture[]::new));
    }

    /** One master of the view and the connection to it. */
    private final class Shard {

        final String address;

        final RedisURI uri;

        final NodeConnection connection;

        final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

        Shard(String address, RedisURI uri) {
            this.address = address;
            this.uri = uri;
            this.connection = new NodeConnection(ClusterShards.this.connector, uri, ClusterShards.this.scheduler,
                    () -> shardReady(this), () -> shardDown(this));
        }

        void connect() {
            this.connection.connect().whenComplete((done, failure) -> this.firstAttempt.complete(null));
        }

    }

    /**
     * A view of the cluster: its masters in slot order, which serves each slot, a signature that changes with any of
     * it, and which slots no master serves (null when every slot is served).
     */
    record View(List<Shard> shards, NodeConnection @Nullable [] bySlot, String signature, @Nullable String uncovered,
            List<String> servers) {

        static final View NONE = new View(List.of(), null, "", "no cluster view read yet", List.of());

        record Master(String host, int port, List<Integer> slots) {

            String address() {
                return this.host + ":" + this.port;
            }

        }

        record Parsed(List<Master> masters, String signature, @Nullable String uncovered) {
        }

        /** Reads {@code CLUSTER NODES}: the masters that serve slots, sorted by their first slot. */
        static Parsed parse(String clusterNodes, RedisURI source) {
            Partitions partitions = ClusterPartitionParser.parse(clusterNodes);
            List<Master> masters = new ArrayList<>();
            for (RedisClusterNode node : partitions) {
                if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
                    continue;
                }
                RedisURI address = node.getUri();
                String host = (address != null) ? address.getHost() : source.getHost();
                int port = (address != null) ? address.getPort() : source.getPort();
                List<Integer> slots = node.getSlots().stream().sorted().toList();
                masters.add(new Master(host, port, slots));
            }
            masters.sort((a, b) -> Integer.compare(a.slots().get(0), b.slots().get(0)));
            StringJoiner signature = new StringJoiner(" ");
            int served = 0;
            for (Master master : masters) {
                signature.add(master.address() + "=" + ranges(master.slots()));
                served += master.slots().size();
            }
            String uncovered = (served < SlotHash.SLOT_COUNT) ? (SlotHash.SLOT_COUNT - served) + " of the cluster's " + SlotHash.SLOT_COUNT
                    + " hash slots have no master in its view" : null;
            return new Parsed(masters, signature.toString(), uncovered);
        }

        static String ranges(List<Integer> slots) {
            StringJoiner ranges = new StringJoiner(",");
            int start = slots.get(0);
            int previous = start;
            for (int i = 1; i <= slots.size(); i++) {
                int slot = (i < slots.size()) ? slots.get(i) : -2;
                if (slot != previous + 1) {
                    ranges.add((start == previous) ? Integer.toString(start) : start + "-" + previous);
                    start = slot;
                }
                previous = slot;
            }
            return ranges.toString();
        }

    }

}
