package io.github.redlock.core.internal.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.script.ClusterKeys;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.ClusterUri;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * One Redis master, reached through one multiplexed asynchronous Lettuce connection. Commands are never
 * queued while the node is unreachable: before the first connection they are answered "not connected"
 * at once, later Lettuce rejects them (the client options say so). Replies are recorded into a
 * {@link QuorumCall}, which also stops waiting at the node timeout. Commands are never cancelled, so each
 * one reaches the node in the order it was queued on the connection.
 * <p>
 * What may be queued for a node is bounded so that releases always fit: acquisitions and extensions are
 * refused without sending while {@link NodeLimits#SET_LIMIT} replies are pending, releases and clean-ups never are.
 * A release or clean-up that could not be sent (the node was disconnected) is owed: it is sent again once
 * the node is connected and has its scripts, as long as the key could still exist, up to
 * {@link NodeLimits#OWED_LIMIT} per node; past that the key expires with its ttl, and a warning says so.
 * <p>
 * It holds every command the algorithm sends to one node, each with its own bound and reply decoding; the
 * connection's life is {@link NodeConnection}'s, the vote {@link NodeVote}'s, what is owed
 * {@link OwedReleases}'.
 */
public final class RedisNodeClient {

    /** How often a Sentinel node that followed a failover checks that it left the former master. */
    private static final long FOLLOW_RETRY_MILLIS = 500;

    private final String name;

    private final RedisURI uri;

    private final EventExecutorGroup scheduler;

    /** The connection to the node's server (or a Sentinel group's master); for a cluster node, the one to its first seed, unused. */
    private final NodeConnection link;

    /** For a Redis Cluster node, its masters and the connection to each; null otherwise. */
    private final @Nullable ClusterShards cluster;

    /** Commands sent and not yet answered: grows while the node is frozen. */
    private final AtomicInteger awaitingReply = new AtomicInteger();

    private final NodeReply unresponsive;

    /** Releases and clean-ups that could not be sent, to send once the node is back. */
    private final OwedReleases owed;

    /** Checks the node before it votes, after each (re)connection; until then it does not vote. */
    private volatile Runnable check = () -> { };

    /** Whether the node may vote: set by the check after each (re)connection. */
    private final NodeVote vote = new NodeVote();

    /** For a Sentinel node, what tells it of a failover at once; null for a single server. */
    private final @Nullable SentinelWatch sentinels;

    /** Runs the scripts, by SHA with the body as fallback, split by slot group on a cluster node. */
    private final ScriptSender scripts;

    /** Whether a resend of owed releases is scheduled. */
    private final java.util.concurrent.atomic.AtomicBoolean resendPending = new java.util.concurrent.atomic.AtomicBoolean();

    public RedisNodeClient(NodeConnector connector, RedisURI uri, EventExecutorGroup scheduler) {
        this.name = Uris.nodeName(uri);
        this.uri = uri;
        this.scheduler = scheduler;
        this.link = new NodeConnection(connector, uri, scheduler, this::ready, this::down);
        this.owed = new OwedReleases(this.name);
        this.unresponsive = NodeReply.notConnected(NodeLimits.SET_LIMIT + " commands await a reply (node frozen or overloaded)");
        this.sentinels = Uris.isSentinel(uri) ? new SentinelWatch(connector, uri, scheduler, this::followFailover,
                (named) -> followMaster("a majority of the sentinels name " + named + " as the master"), this.link::address) : null;
        this.cluster = (uri instanceof ClusterUri clusterUri) ? new ClusterShards(connector, clusterUri, scheduler, this::ready, this::down) : null;
        this.scripts = new ScriptSender(new ScriptSender.Routes() {

            @Override
            public @Nullable NodeConnection route(byte[] key) {
                return RedisNodeClient.this.route(key);
            }

            @Override
            public byte[][] placed(byte[][] keys) {
                return RedisNodeClient.this.placed(keys);
            }

            @Override
            public NodeReply notConnected() {
                return RedisNodeClient.this.notConnected();
            }

            @Override
            public void failed(@Nullable Throwable failure) {
                noteFailure(failure);
            }

            @Override
            public void owe(OwedReleases.Release release) {
                RedisNodeClient.this.owe(release);
            }

        }, this.cluster != null, this.awaitingReply);
    }

    /** The node as lock errors name it: {@code host:port}, or {@code name@sentinels} for a Sentinel group. */
    public String name() {
        return this.name;
    }

    /** Whether the node's connection is up now (a cluster node's: the connection to each of its masters). */
    public boolean isConnected() {
        return (this.cluster != null) ? this.cluster.isConnected() : this.link.isConnected();
    }

    /** Why the node is not connected (e.g. its last connection attempt's failure, cause by cause), while it is not. */
    public String notConnectedReason() {
        return notConnected().reason();
    }

    private NodeReply notConnected() {
        return (this.cluster != null) ? this.cluster.notConnected() : this.link.notConnected();
    }

    /**
     * The connection that a command on these keys goes to: the node's, or for a cluster node the one to the master that
     * serves the first key's slot (null when none does).
     */
    private @Nullable NodeConnection route(byte[] key) {
        return (this.cluster != null) ? this.cluster.route(key) : this.link;
    }

    /** The keys as the node stores them: a cluster node's companion keys are tagged into their lock's slot. */
    private byte[][] placed(byte[][] keys) {
        return (this.cluster != null) ? ClusterKeys.place(keys) : keys;
    }

    /**
     * Why the node's TLS certificate was refused at the last connection attempt (an unknown certificate authority, a
     * name the certificate is not for), while the node has not been connected since; else null. Other failures (a
     * node down, a refused password) are not certificate problems.
     */
    public @Nullable String certificateProblem() {
        Throwable failure = (this.cluster != null) ? this.cluster.lastFailure() : this.link.lastFailure();
        if (failure == null) {
            return null;
        }
        for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
            if (cause instanceof java.security.cert.CertificateException || cause instanceof java.security.cert.CertPathValidatorException
                    || cause instanceof javax.net.ssl.SSLPeerUnverifiedException) {
                return Uris.describe(failure);
            }
        }
        return null;
    }

    /**
     * Lettuce failed to reconnect a connection to {@code remote}: if that is this node's address and it is not connected,
     * the node says why (e.g. {@code WRONGPASS}: rotated credentials that the application's provider does not give yet).
     * A Sentinel node's address is its master's, which changes: its reconnections say only that they are reconnecting.
     */
    void reconnectFailed(@Nullable SocketAddress remote, @Nullable Throwable cause) {
        if (this.cluster != null && cause != null) {
            this.cluster.reconnectFailed(remote, cause);
        }
        else if (cause != null && remote instanceof InetSocketAddress address && this.sentinels == null && !isConnected()
                && address.getPort() == this.uri.getPort() && address.getHostString().equals(this.uri.getHost())) {
            this.link.reconnectFailed(cause);
        }
    }

    /** Sets what checks the node after each (re)connection; it must end in {@link NodeVote#voteFrom}. */
    public void checkWith(Runnable check) {
        this.check = check;
    }

    /** Whether the node may vote, and its {@code run_id}. */
    public NodeVote vote() {
        return this.vote;
    }

    /**
     * The servers that answer for the node, where they differ from its name: a cluster node's masters and their slots, a
     * Sentinel node's current master.
     */
    public List<String> servers() {
        if (this.cluster != null) {
            return this.cluster.servers();
        }
        String master = (this.sentinels != null && isConnected()) ? this.link.address() : null;
        return (master != null) ? List.of(master) : List.of();
    }

    /** Whether the node is a Redis Cluster, whose masters may change. */
    public boolean isCluster() {
        return this.cluster != null;
    }

    /** Whether the node is a Sentinel group, whose master may change. */
    public boolean isSentinel() {
        return this.sentinels != null;
    }

    /**
     * Why a Sentinel or cluster node may not vote now although its check let it: no majority of its sentinels (of the
     * cluster's other masters) confirmed, within {@link #SENTINEL_CONFIRMATION_NANOS}, that the server its connection
     * reaches is the master (that its view is theirs) (docs/nodes.md). Null when they did, and for a single server.
     */
    public @Nullable String unconfirmed() {
        ClusterShards shards = this.cluster;
        if (shards != null) {
            return shards.confirms() ? null : shards.unconfirmed();
        }
        SentinelWatch watch = this.sentinels;
        if (watch == null) {
            return null;
        }
        String address = this.link.address();
        return watch.confirms(address) ? null : watch.unconfirmed(address);
    }

    /**
     * Whether the node's vote depends on a confirmation by its group's authority (a Sentinel group's sentinels, a
     * cluster's other masters) that the server it votes through is the master (docs/nodes.md).
     */
    public boolean isGroup() {
        return this.sentinels != null || this.cluster != null;
    }

    /**
     * Of a Sentinel node: a future completed with true as soon as a majority of its sentinels confirms the server its
     * connection reaches, or with false after {@code timeoutMillis}; of a cluster node, once the other masters confirm
     * its view. Completed with true at once for a single server.
     */
    public CompletableFuture<Boolean> confirmedByGroup(long timeoutMillis) {
        if (this.cluster != null) {
            return this.cluster.confirmed(timeoutMillis);
        }
        SentinelWatch watch = this.sentinels;
        return (watch == null) ? CompletableFuture.completedFuture(true) : watch.confirmed(this.link.address(), timeoutMillis);
    }

    /** How long a confirmation by a Sentinel node's sentinels counts (see {@link #unconfirmed()}). */
    public static final long SENTINEL_CONFIRMATION_NANOS = SentinelWatch.CONFIRMATION_BOUND_NANOS;

    /**
     * Of a Sentinel node: drops the connection to the server that answers now and connects to the master that the
     * sentinels name, which is checked before it votes (a promoted replica is quarantined as a restarted server is).
     * Does nothing for a single server, whose address always leads to the same one.
     * @param reason why, for the log
     */
    public void followMaster(String reason) {
        if (this.sentinels != null) {
            this.link.reconnect(reason);
        }
        else if (this.cluster != null) {
            this.cluster.rediscover(reason);
        }
    }

    /**
     * The sentinels announced a failover: reconnects to the master they name, and again every half second, for up to 15
     * s, while the node still answers as the server it was before (the {@code run_id} its last decided check saw): a
     * sentinel that has not yet heard of the failover (they tell each other every 2 s) may still name the former master,
     * and a repeat of the announcement is not reported again.
     */
    private void followFailover(String announcement) {
        String before = this.vote.runId();
        followMaster("the sentinels announced a failover (" + announcement + ")");
        if (before != null) {
            this.scheduler.schedule(() -> followUntilChanged(before, 30), FOLLOW_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void followUntilChanged(String before, int attemptsLeft) {
        if (this.link.isClosed() || attemptsLeft <= 0) {
            return;
        }
        NodeVote.State state = this.vote.current();
        if (isConnected() && state.checked() && before.equals(this.vote.runId())) {
            followMaster("the sentinels still named the former master after a failover");
        }
        else if (isConnected() && state.checked()) {
            return; // another server answers now: the failover is followed
        }
        this.scheduler.schedule(() -> followUntilChanged(before, attemptsLeft - 1), FOLLOW_RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * A reply that says the server answering is a replica now (a Sentinel node's master was replaced), or that a cluster
     * node's view is stale (a failover, slots moved): the node follows.
     */
    private void noteFailure(@Nullable Throwable failure) {
        Throwable cause = ScriptSender.unwrap(failure);
        if (this.cluster != null && cause != null) {
            String message = String.valueOf(cause.getMessage());
            if (message.startsWith("MOVED") || message.startsWith("ASK") || message.startsWith("CLUSTERDOWN")
                    || message.contains("READONLY") || message.contains("TRYAGAIN")) {
                this.cluster.rediscover("a master answered " + message);
            }
            return;
        }
        // A script's write refused on a replica may come wrapped in a script error (Redis before 7).
        if (this.sentinels != null && cause != null && (cause instanceof RedisReadOnlyException
                || String.valueOf(cause.getMessage()).contains("READONLY"))) {
            followMaster("the server answering it is a replica now (" + cause.getMessage() + ")");
        }
    }

    /** The connection works again: send what is owed, and check the node before it votes. */
    private void ready() {
        resendOwed();
        this.check.run();
    }

    /** The connection dropped: the node may come back as another server process, unchecked. */
    private void down() {
        this.vote.disconnected();
    }

    /**
     * Reads what the node says of itself: {@code INFO server} and {@code INFO replication}, and whether it logs
     * every write before answering ({@code CONFIG GET}; false where {@code CONFIG} is disabled).
     */
    public CompletableFuture<ServerInfo> serverInfo() {
        if (this.cluster != null) {
            return this.cluster.serverInfo();
        }
        return onConnection((async) -> {
            CompletableFuture<String> server = async.info("server").toCompletableFuture();
            CompletableFuture<String> replication = async.info("replication").toCompletableFuture();
            // One parameter per CONFIG GET: Redis before 7 refuses several, and the node would never count as durable.
            CompletableFuture<Boolean> durable = async.configGet("appendonly").toCompletableFuture()
                    .thenCombine(async.configGet("appendfsync").toCompletableFuture(),
                            (appendonly, appendfsync) -> "yes".equals(appendonly.get("appendonly")) && "always".equals(appendfsync.get("appendfsync")))
                    .exceptionally((failure) -> false);
            return server.thenCombine(replication, (a, b) -> a + "\n" + b)
                    .thenCombine(durable, ServerInfo::parse);
        });
    }

    /**
     * Reads the node's {@code run_id} ({@code INFO server} alone): which server process answers on this connection. Not
     * for a cluster node, whose servers answer on connections of their own ({@link #serverInfo()} names them all).
     */
    public CompletableFuture<String> runId() {
        if (this.cluster != null) {
            throw new IllegalStateException("a cluster node has no one run_id: read serverInfo()");
        }
        return onConnection((async) -> async.info("server").toCompletableFuture().thenApply((info) -> ServerInfo.parse(info, false).runId()));
    }

    /** Runs a script that is called seldom, by its body, and returns its reply. */
    public CompletableFuture<Object> call(LuaScript script, byte[][] keys, byte[]... args) {
        byte[][] placed = placed(keys);
        return onConnection(route(placed[0]), (async) -> async.<Object>eval(script.body(), ScriptOutputType.MULTI, placed, args)
                .toCompletableFuture());
    }

    /** Runs a script that is called seldom and answers a value (null for Lua's false), by its body, and returns its reply. */
    public CompletableFuture<byte[]> callForValue(LuaScript script, byte[][] keys, byte[]... args) {
        byte[][] placed = placed(keys);
        return onConnection(route(placed[0]), (async) -> async.<byte[]>eval(script.body(), ScriptOutputType.VALUE, placed, args)
                .toCompletableFuture());
    }

    /** Runs a seldom command on the node's connection, or fails with "not connected" while there is none. */
    private <T> CompletableFuture<T> onConnection(Function<RedisAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
        return onConnection(this.link, command);
    }

    /** Runs a seldom command on a connection of the node, or fails with "not connected" while there is none. */
    private <T> CompletableFuture<T> onConnection(@Nullable NodeConnection connection,
            Function<RedisAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (async == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        }
        return command.apply(async);
    }

    /**
     * Starts connecting, and keeps retrying in the background while the node is unreachable.
     * @return a future completed after the first attempt, whether it succeeded or not
     */
    CompletableFuture<Void> connect() {
        if (this.cluster != null) {
            return this.cluster.connect();
        }
        if (this.sentinels != null) {
            this.sentinels.start();
        }
        return this.link.connect();
    }

    /**
     * Sends {@code SET key token NX PX ttl} and records whether the node set it.
     */
    public void setIfAbsent(byte[] key, byte[] token, long ttlMillis, QuorumCall call, int index) {
        long epoch = this.vote.current().epoch(); // before the vote is read, and before the route: see acrossReconnect
        NodeConnection connection = route(key);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (async == null) {
            call.record(index, notConnected());
            return;
        }
        if (refusedAsNotVoting(call, index) || refusedAsUnresponsive(call, index)) {
            return;
        }
        this.awaitingReply.incrementAndGet();
        async.set(key, token, SetArgs.Builder.nx().px(ttlMillis)).whenComplete((reply, failure) -> {
            this.awaitingReply.decrementAndGet();
            noteFailure(failure);
            call.record(index, acrossReconnect(epoch, (failure != null) ? NodeReply.failure(failure)
                    : "OK".equals(reply) ? NodeReply.GRANTED : NodeReply.DENIED));
        });
    }

    /**
     * A yes to an acquisition sent while the node voted but answered after the connection dropped and came back:
     * it may come from a restarted, unchecked server, so it counts as an error, not a vote (an error, not a
     * rejection, so that the clean-up still goes to the node).
     */
    private NodeReply acrossReconnect(long epoch, NodeReply reply) {
        if (reply.granted() && this.vote.current().epoch() != epoch) {
            return new NodeReply(NodeReply.Outcome.ERROR, "error: answered after the connection dropped and came back");
        }
        return reply;
    }

    /**
     * Sends an acquisition script (read or write lock, or a fenced exclusive lock) and records whether the node
     * granted it, with the node's fencing counter when the script returns one (any positive reply is a yes);
     * refused without sending, like a SET, while too many replies are pending.
     */
    public void acquire(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        long epoch = this.vote.current().epoch(); // before the vote is read: see acrossReconnect
        if (!connected(keys)) {
            // Not sent. Never past the vote's check: a connection that opens meanwhile (a first connect, a Sentinel
            // node's new master, a cluster's new master) raises no epoch, and its server is not checked yet.
            call.record(index, notConnected());
            return;
        }
        if (refusedAsNotVoting(call, index) || refusedAsUnresponsive(call, index)) {
            return;
        }
        this.scripts.send(script, keys, args, (reply, failure) -> call.record(index, acrossReconnect(epoch, acquisitionReply(reply, failure))));
    }

    /**
     * Sends an extension script and records how long the node keeps the key ({@link NodeReply#held}), or a
     * no; refused without sending, like a SET, while too many replies are pending, so that an unresponsive
     * node's queue keeps room for every release.
     */
    public void extend(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        if (connected(keys) && (refusedAsUnresponsive(call, index) || refusedAsUnrecorded(call, index) || refusedAsUnconfirmed(call, index))) {
            return;
        }
        this.scripts.send(script, keys, args, (reply, failure) -> call.record(index, (failure == null && reply != null && reply > 0)
                ? NodeReply.held(reply) : ScriptSender.scriptReply(reply, failure)));
    }

    /**
     * Sends a release or clean-up script and records whether it deleted something. Never refused for pending
     * replies; if the node rejects it because it is disconnected, it is owed and sent again when the node
     * is back, until {@code owedUntilNanos} ({@link System#nanoTime()}), after which the key cannot exist.
     */
    public void release(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index, long owedUntilNanos) {
        OwedReleases.Release entry = (owedUntilNanos != 0) ? new OwedReleases.Release(script, keys, args, owedUntilNanos) : null;
        this.scripts.send(script, keys, args, (reply, failure) -> {
            NodeReply result = ScriptSender.scriptReply(reply, failure);
            if (entry != null && ScriptSender.notDelivered(result)) {
                owe(entry);
            }
            call.record(index, result);
        });
    }

    /**
     * Sends the handoff script ({@link LuaScript#HANDOFF}) in place of a release: it is the release of the lease
     * that {@code release} collects and, for the next holder, the acquisition that {@code handoff} collects (a
     * yes to it, like a SET's, counts only while the node votes on the same connection). Where the node may not
     * grant an acquisition now (not voting, or too many replies pending) the plain release goes instead, and the
     * handoff counts a refusal there; a handoff that does not reach the node owes the plain release, never the
     * handoff itself (a replayed handoff would set a key that nobody holds). A node where another client waits
     * releases instead (reply 2): a yes for the release, a no for the handoff.
     */
    public void handOver(byte[][] keys, byte[][] args, QuorumCall handoff, QuorumCall release, int index, OwedReleases.Release plain) {
        long epoch = this.vote.current().epoch(); // before the vote is read, and before the route: see acrossReconnect
        byte[][] placed = placed(keys);
        NodeConnection connection = route(placed[0]);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (connection == null || async == null) {
            NodeReply notConnected = notConnected();
            handoff.record(index, notConnected);
            owe(plain);
            release.record(index, notConnected);
            return;
        }
        if (refusedAsNotVoting(handoff, index) || refusedAsUnresponsive(handoff, index)) {
            release(plain.script(), plain.keys(), plain.args(), release, index, plain.untilNanos());
            return;
        }
        this.scripts.send(connection, async, LuaScript.HANDOFF, placed, args, (reply, failure) -> {
            NodeReply result = ScriptSender.scriptReply(reply, failure);
            if (ScriptSender.notDelivered(result)) {
                owe(plain);
            }
            // 2: released instead, as another client waits there: the lease was held, the handoff refused.
            release.record(index, (failure == null && reply != null && reply == 2L) ? NodeReply.GRANTED : result);
            handoff.record(index, acrossReconnect(epoch, result));
        });
    }

    /** Whether the connection that a command on these keys goes to is open. */
    private boolean connected(byte[][] keys) {
        NodeConnection connection = route(placed(keys)[0]);
        return connection != null && connection.commands() != null;
    }

    /**
     * Refuses an acquisition without sending it while the node may not vote (unchecked since it connected, or
     * quarantined): nothing sent, so no clean-up owed.
     */
    private boolean refusedAsNotVoting(QuorumCall call, int index) {
        if (!this.vote.mayVote()) {
            call.record(index, this.vote.refusal(isConnected()));
            return true;
        }
        return refusedAsUnconfirmed(call, index);
    }

    /**
     * Refuses an extension through a node whose restart record this client could not confirm lately: a lease extended
     * there might outlive the records that tell a later check of the node that it was in use.
     */
    private boolean refusedAsUnrecorded(QuorumCall call, int index) {
        if (this.vote.recordedNow()) {
            return false;
        }
        call.record(index, NodeReply.notVoting(this.vote.unrecorded()));
        return true;
    }

    /**
     * Refuses a command that would count toward a lease's validity (an acquisition, an extension) through a Sentinel
     * node's server while a majority of its sentinels has not freshly confirmed it as the master: it may be a deposed
     * master that still answers as one, beside a promoted replica that counts in another client.
     */
    private boolean refusedAsUnconfirmed(QuorumCall call, int index) {
        ClusterShards shards = this.cluster;
        if (shards != null) {
            if (shards.confirms()) {
                return false;
            }
            call.record(index, NodeReply.notVoting(shards.unconfirmed()));
            return true;
        }
        SentinelWatch watch = this.sentinels;
        if (watch == null) {
            return false;
        }
        String address = this.link.address();
        if (watch.confirms(address)) {
            return false;
        }
        call.record(index, NodeReply.notVoting(watch.unconfirmed(address)));
        return true;
    }

    /**
     * Refuses an acquisition without sending it while {@link NodeLimits#SET_LIMIT} replies are pending: nothing sent, so
     * no clean-up owed; nothing logged or thrown.
     */
    private boolean refusedAsUnresponsive(QuorumCall call, int index) {
        if (this.awaitingReply.get() < NodeLimits.SET_LIMIT) {
            return false;
        }
        call.record(index, this.unresponsive);
        return true;
    }

    /**
     * Runs a script and records a reply of 1 as a yes.
     */
    public void eval(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        this.scripts.send(script, keys, args, (reply, failure) -> call.record(index, ScriptSender.scriptReply(reply, failure)));
    }

    /** How many releases and clean-ups this client owes the node, to send once it answers again. */
    public int owedReleases() {
        return this.owed.size();
    }

    /** Keeps a release that could not be sent, to send when the node is back. */
    private void owe(OwedReleases.Release release) {
        if (!this.link.isClosed() && this.owed.owe(release) && (this.cluster != null || this.link.scriptsLoaded()) && isConnected()
                && this.resendPending.compareAndSet(false, true)) {
            // Connected again meanwhile (or the node refused for its queue): try again shortly, off this call's
            // thread, with one pending resend per node however many releases are owed.
            this.scheduler.schedule(() -> {
                this.resendPending.set(false);
                resendOwed();
            }, 50, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the owed releases whose keys may still exist; one rejected again is owed again. */
    private void resendOwed() {
        this.owed.drain((release) -> this.scripts.send(release.script(), release.keys(), release.args(), (reply, failure) -> {
            if (ScriptSender.scriptReply(reply, failure).outcome() == NodeReply.Outcome.REJECTED) {
                owe(release);
            }
        }));
    }

    /**
     * An acquisition script's reply: positive is a yes (with the fencing counter, for a fenced lock); below -1, a
     * no with the holder's PTTL, {@code -(pttl + 2)}; else a no.
     */
    private static NodeReply acquisitionReply(Long reply, Throwable failure) {
        if (failure == null && reply != null && reply > 0) {
            return NodeReply.counted(reply);
        }
        if (failure == null && reply != null && reply < 0) {
            return NodeReply.deniedFor(-reply - 2);
        }
        return ScriptSender.scriptReply(reply, failure);
    }

    /**
     * Stops reconnecting, forgets what is owed, and closes the connection.
     * @return a future completed when the connection is closed
     */
    CompletableFuture<Void> close() {
        CompletableFuture<Void> closed = (this.cluster != null) ? CompletableFuture.allOf(this.link.close(), this.cluster.close()) : this.link.close();
        this.owed.clear();
        return (this.sentinels != null) ? CompletableFuture.allOf(closed, this.sentinels.close()) : closed;
    }

}
