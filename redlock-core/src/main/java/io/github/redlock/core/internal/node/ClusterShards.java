package io.github.redlock.core.internal.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.script.ClusterKeys;
import io.github.redlock.core.internal.support.ClusterUri;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
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
 * ({@link ClusterConfirmation}; docs/nodes.md, "A deposed master counts only while the other masters confirm the view").
 */
final class ClusterShards implements NodeKind {

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

    private volatile ClusterRoutes view = ClusterRoutes.NONE;

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

    /** Where the view is read while no master of it is connected. */
    private final ClusterSeeds seeds;

    /** Whether the other masters confirm the view: the node votes only while they do. */
    private final ClusterConfirmation confirmation;

    ClusterShards(NodeConnector connector, ClusterUri uri, EventExecutorGroup scheduler, Runnable onReady, Runnable onDown) {
        this.connector = connector;
        this.uri = uri;
        this.scheduler = scheduler;
        this.onReady = onReady;
        this.onDown = onDown;
        this.confirmation = new ClusterConfirmation(() -> this.view, scheduler, this::discoverFrom);
        this.seeds = new ClusterSeeds(connector, uri.seeds(), () -> this.closed, DISCOVER_TIMEOUT_MILLIS);
    }

    /**
     * Reads the view from the seeds and connects to every master.
     * @return a future completed once the first attempt decided (whether every master connected or not)
     */
    @Override
    public CompletableFuture<Void> connect() {
        this.confirmation.start();
        discover(null, "connecting").whenComplete((changed, failure) -> {
            if (failure != null) {
                scheduleRediscovery();
                this.firstAttempt.complete(null);
                return;
            }
            List<CompletableFuture<Void>> attempts = this.view.masters().stream().map((shard) -> shard.firstAttempt).toList();
            CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).whenComplete((done, ignored) -> this.firstAttempt.complete(null));
        });
        return this.firstAttempt;
    }

    /** Null while the other masters confirm the view ({@link ClusterConfirmation#confirms()}); else why they do not. */
    @Override
    public @Nullable String unconfirmed() {
        return this.confirmation.confirms() ? null : this.confirmation.unconfirmed();
    }

    @Override
    public CompletableFuture<Boolean> confirmed(long timeoutMillis) {
        return this.confirmation.confirmed(timeoutMillis);
    }

    /** A companion key is tagged into its lock's slot ({@link ClusterKeys}), so that a script's keys share a master. */
    @Override
    public byte[][] placed(byte[][] keys) {
        return ClusterKeys.place(keys);
    }

    /** A reply that says the view is stale ({@code MOVED}, {@code ASK}, {@code CLUSTERDOWN}, {@code READONLY}) reads it again. */
    @Override
    public void noteFailure(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        if (message.startsWith("MOVED") || message.startsWith("ASK") || message.startsWith("CLUSTERDOWN")
                || message.contains("READONLY") || message.contains("TRYAGAIN")) {
            follow("a master answered " + message);
        }
    }

    /** The connection to the master that serves the key's slot in the current view, or null when none does. */
    @Override
    public @Nullable NodeConnection route(byte[] key) {
        NodeConnection[] bySlot = this.view.bySlot();
        return (bySlot != null) ? bySlot[SlotHash.getSlot(key)] : null;
    }

    /** The masters of the current view, in slot order, each as {@code host:port slots <ranges>}. */
    @Override
    public List<String> servers() {
        return this.view.servers();
    }

    /** Whether the view is known and every master's connection is up. */
    @Override
    public boolean isConnected() {
        return this.view.allConnected(false);
    }

    @Override
    public boolean mayResend() {
        return isConnected();
    }

    /** Whether the view is known and every master's connection is up with its scripts loaded: the node can be checked. */
    private boolean isReady() {
        return this.view.allConnected(true);
    }

    /** The reply of the node while a master it needs is not connected, with why. */
    @Override
    public NodeReply notConnected() {
        String failure = this.discoveryFailure;
        ClusterRoutes current = this.view;
        if (current.masters().isEmpty()) {
            return NodeReply.notConnected((failure != null) ? failure : "no master in the cluster's view");
        }
        for (ClusterMaster shard : current.masters()) {
            if (!shard.connection.isConnected()) {
                return NodeReply.notConnected("master " + shard.address + ": " + shard.connection.notConnected().reason());
            }
        }
        return NodeReply.notConnected((current.uncovered() != null) ? current.uncovered() : "not connected");
    }

    /** Why the last attempt to reach the cluster failed, while it is not connected; else null. */
    @Override
    public @Nullable Throwable lastFailure() {
        for (ClusterMaster shard : this.view.masters()) {
            Throwable failure = shard.connection.lastFailure();
            if (failure != null) {
                return failure;
            }
        }
        return this.view.masters().isEmpty() ? this.lastFailure : null;
    }

    /** Lettuce failed to reconnect a connection to {@code remote}: the master there says why, if it is one of the view's. */
    @Override
    public void reconnectFailed(@Nullable SocketAddress remote, Throwable cause) {
        if (remote instanceof InetSocketAddress address) {
            for (ClusterMaster shard : this.view.masters()) {
                if (!shard.connection.isConnected() && shard.uri.getPort() == address.getPort()
                        && shard.uri.getHost().equals(address.getHostString())) {
                    shard.connection.reconnectFailed(cause);
                }
            }
        }
    }

    /**
     * What every master of the view says of itself, as one server ({@link ServerInfo#ofCluster}). Reads the view first: a
     * view that changed fails the check, and the change checks the node again.
     */
    @Override
    public CompletableFuture<ServerInfo> serverInfo() {
        ClusterRoutes before = this.view;
        return discover(null, "checking the node").thenCompose((changed) -> {
            ClusterRoutes current = this.view;
            if (changed || current != before) {
                throw new CompletionException(new IllegalStateException("the cluster's view changed during the check; checked again"));
            }
            if (current.uncovered() != null) {
                throw new CompletionException(new IllegalStateException(current.uncovered()));
            }
            List<CompletableFuture<ServerInfo>> infos = new ArrayList<>();
            for (ClusterMaster shard : current.masters()) {
                RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
                if (async == null || !shard.connection.isConnected()) {
                    throw new CompletionException(new IllegalStateException("master " + shard.address + " is not connected"));
                }
                infos.add(async.info("server").toCompletableFuture().thenCombine(async.info("replication").toCompletableFuture(),
                        (server, replication) -> ServerInfo.parse(server + "\n" + replication, false)));
            }
            return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new))
                    .thenApply((done) -> ServerInfo.ofCluster(infos.stream().map(CompletableFuture::join).toList()));
        });
    }

    /**
     * A reply said the view is stale, or the node must follow a change: reads the view again (at once, or after the
     * read that runs).
     */
    @Override
    public void follow(String reason) {
        if (System.nanoTime() - this.lastDiscoveryNanos < TimeUnit.MILLISECONDS.toNanos(MIN_DISCOVERY_INTERVAL_MILLIS)) {
            // A burst of stale replies (every command in flight to a demoted master answers MOVED) reads the view once.
            scheduleRediscovery(MIN_DISCOVERY_INTERVAL_MILLIS);
            return;
        }
        discoverFrom(null, reason);
    }

    /** A new connection to a master of the view, which tells this node when it is ready or drops. */
    private NodeConnection connection(ClusterMaster master) {
        return new NodeConnection(this.connector, master.uri, this.scheduler, () -> shardReady(master), () -> shardDown(master));
    }

    /** A master's connection dropped: the node stops voting, and the view is read again until every master is back. */
    private void shardDown(ClusterMaster shard) {
        if (this.view.masters().contains(shard)) {
            this.onDown.run();
            scheduleRediscovery();
        }
    }

    /** A master's connection is ready: once all are, the node is checked. */
    private void shardReady(ClusterMaster shard) {
        if (this.view.masters().contains(shard) && isReady()) {
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
                    discoverFrom(null, "a master is not connected, or answered that the view is stale");
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reads the view from the given master first ({@code host:port} of a master of the view; null: any), as
     * {@link #discover(String, String)}, and again later while that fails or a master is not connected.
     */
    private void discoverFrom(@Nullable String address, String reason) {
        discover(address, reason).whenComplete((changed, failure) -> {
            if (failure != null || !isConnected()) {
                scheduleRediscovery();
            }
        });
    }

    /**
     * Reads the view (from a connected master, the preferred one first, else from each seed in turn) and applies it if
     * it changed.
     * @return whether it changed; failed when no server answered
     */
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
        CompletableFuture<ClusterSeeds.ViewText> read = null;
        List<ClusterMaster> sources = new ArrayList<>(this.view.masters());
        sources.sort((a, b) -> Boolean.compare(!a.address.equals(preferred), !b.address.equals(preferred)));
        for (ClusterMaster shard : sources) {
            RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
            if (async != null && shard.connection.isConnected()) {
                RedisURI source = shard.uri;
                read = async.clusterNodes().toCompletableFuture().orTimeout(DISCOVER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                        .thenApply((text) -> new ClusterSeeds.ViewText(text, source));
                break;
            }
        }
        read = (read != null) ? read.handle((text, failure) -> (failure == null) ? CompletableFuture.completedFuture(text)
                : this.seeds.read(failure)).thenCompose((next) -> next) : this.seeds.read(null);
        return read.thenApply((text) -> {
            this.discoveryFailure = null;
            this.lastFailure = null;
            return apply(ClusterView.parse(text.view(), text.source()), reason);
        }).whenComplete((changed, failure) -> {
            this.discovering.set(false);
            if (failure != null) {
                Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
                this.lastFailure = cause;
                this.discoveryFailure = "cannot read the cluster's view from any seed or master: " + Uris.describe(cause);
            }
        });
    }

    /** Applies a view read just now, when it differs from the current one; returns whether it did. */
    private boolean apply(ClusterView parsed, String reason) {
        ClusterRoutes current = this.view;
        if (this.closed || parsed.signature().equals(current.signature())) {
            return false;
        }
        Map<String, ClusterMaster> kept = new HashMap<>();
        current.masters().forEach((shard) -> kept.put(shard.address, shard));
        List<ClusterMaster> shards = new ArrayList<>();
        List<ClusterMaster> opened = new ArrayList<>();
        for (ClusterView.Master master : parsed.masters()) {
            ClusterMaster shard = kept.remove(master.address());
            if (shard == null) {
                shard = new ClusterMaster(master.address(), this.uri.server(master.host(), master.port()), this::connection);
                opened.add(shard);
            }
            shards.add(shard);
        }
        boolean changed = !current.masters().isEmpty();
        if (changed) {
            // First the node stops voting, then commands go by the new view: a yes from a master it did not check, to a
            // command that saw the node voting before, arrives in a later epoch and counts as an error.
            logger.log(System.Logger.Level.INFO, "Redis node " + this.uri.name() + " has a new cluster view (" + reason + "): "
                    + parsed.signature() + "; it is checked again before it votes");
            this.onDown.run();
        }
        this.view = ClusterRoutes.of(parsed, shards);
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
        opened.forEach(ClusterMaster::connect);
        if (opened.isEmpty() && isReady()) {
            this.onReady.run(); // no new connection will say it is ready: the node is checked now
        }
        return true;
    }

    /** Closes every master's connection and stops reading the view. */
    @Override
    public CompletableFuture<Void> close() {
        this.closed = true;
        this.confirmation.stop();
        return CompletableFuture.allOf(this.view.masters().stream().map((shard) -> shard.connection.close()).toArray(CompletableFuture[]::new));
    }

}
