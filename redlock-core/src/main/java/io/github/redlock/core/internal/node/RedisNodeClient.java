package io.github.redlock.core.internal.node;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.ClusterUri;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * One Redlock node: a single server, a Sentinel group's master or a Redis Cluster ({@link NodeKind} owns the
 * connections, the routing and the failover following), and every command the algorithm sends it, each with its own
 * bound and reply decoding. Commands are never queued while the node is unreachable (Lettuce rejects them; the client
 * options say so) and never cancelled, so each reaches the node in the order it was queued; replies are recorded into
 * a {@link QuorumCall}, which stops waiting at the node timeout.
 * <p>
 * What may be queued is bounded so that releases always fit: acquisitions and extensions are refused without sending
 * ({@link NodeAdmission}) while {@link NodeLimits#SET_LIMIT} replies are pending, releases and clean-ups never are. One
 * that could not be sent is owed ({@link OwedResends}): sent again once the node is back, while its key could still
 * exist, up to {@link NodeLimits#OWED_LIMIT} per node. Whether the node votes is {@link NodeVote}'s.
 */
public final class RedisNodeClient {

    private final String name;

    /** A single server, a Sentinel group or a cluster: its connections, routing, confirmation and failover following. */
    private final NodeKind kind;

    /** Commands sent and not yet answered: grows while the node is frozen. */
    private final AtomicInteger awaitingReply = new AtomicInteger();

    /** Releases and clean-ups that could not be sent, to send once the node is back. */
    private final OwedReleases owed;

    /** Checks the node before it votes, after each (re)connection; until then it does not vote. */
    private volatile Runnable check = () -> { };

    /** Whether the node may vote: set by the check after each (re)connection. */
    private final NodeVote vote = new NodeVote();

    /** Whether a command that counts toward a lease may be sent now. */
    private final NodeAdmission admission;

    /** Runs the scripts, by SHA with the body as fallback, split by slot group on a cluster node. */
    private final ScriptSender scripts;

    /** Sends what is owed again once the node is back. */
    private final OwedResends resends;

    public RedisNodeClient(NodeConnector connector, RedisURI uri, EventExecutorGroup scheduler) {
        this.name = Uris.nodeName(uri);
        this.owed = new OwedReleases(this.name);
        if (uri instanceof ClusterUri clusterUri) {
            this.kind = new ClusterShards(connector, clusterUri, scheduler, this::ready, this::down);
        }
        else {
            NodeConnection link = new NodeConnection(connector, uri, scheduler, this::ready, this::down);
            this.kind = Uris.isSentinel(uri) ? new SentinelGroup(connector, uri, scheduler, link, this.vote) : new SingleServer(uri, link);
        }
        this.admission = new NodeAdmission(this.vote, this.kind, this.awaitingReply);
        this.scripts = new ScriptSender(this.kind, this::noteFailure, this::owe, this.awaitingReply);
        this.resends = new OwedResends(this.owed, this.scripts, this.kind, scheduler);
    }

    /** The node as lock errors name it: {@code host:port}, or {@code name@sentinels} for a Sentinel group. */
    public String name() {
        return this.name;
    }

    /** Whether the node's connection is up now (a cluster node's: the connection to each of its masters). */
    public boolean isConnected() {
        return this.kind.isConnected();
    }

    /** Why the node is not connected (e.g. its last connection attempt's failure, cause by cause), while it is not. */
    public String notConnectedReason() {
        return this.kind.notConnected().reason();
    }

    /**
     * Why the node's TLS certificate was refused at the last connection attempt (an unknown certificate authority, a
     * name the certificate is not for), while the node has not been connected since; else null. Other failures (a
     * node down, a refused password) are not certificate problems.
     */
    public @Nullable String certificateProblem() {
        Throwable failure = this.kind.lastFailure();
        return (failure != null) ? Uris.certificateProblem(failure) : null;
    }

    /**
     * Lettuce failed to reconnect a connection to {@code remote}: if that is this node's address and it is not connected,
     * the node says why (e.g. {@code WRONGPASS}: rotated credentials that the application's provider does not give yet).
     * A Sentinel node's address is its master's, which changes: its reconnections say only that they are reconnecting.
     */
    void reconnectFailed(@Nullable SocketAddress remote, @Nullable Throwable cause) {
        if (cause != null) {
            this.kind.reconnectFailed(remote, cause);
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
        return this.kind.servers();
    }

    /** Whether the node is a Redis Cluster, whose masters may change. */
    public boolean isCluster() {
        return this.kind instanceof ClusterShards;
    }

    /** Whether the node is a Sentinel group, whose master may change. */
    public boolean isSentinel() {
        return this.kind instanceof SentinelGroup;
    }

    /**
     * Why a Sentinel or cluster node may not vote now although its check let it: no majority of its sentinels (of the
     * cluster's other masters) confirmed, within {@link #SENTINEL_CONFIRMATION_NANOS}, that the server its connection
     * reaches is the master (that its view is theirs) (docs/nodes.md). Null when they did, and for a single server.
     */
    public @Nullable String unconfirmed() {
        return this.kind.unconfirmed();
    }

    /**
     * Whether the node's vote depends on a confirmation by its group's authority (a Sentinel group's sentinels, a
     * cluster's other masters) that the server it votes through is the master (docs/nodes.md).
     */
    public boolean isGroup() {
        return !(this.kind instanceof SingleServer);
    }

    /**
     * Of a Sentinel node: a future completed with true as soon as a majority of its sentinels confirms the server its
     * connection reaches, or with false after {@code timeoutMillis}; of a cluster node, once the other masters confirm
     * its view. Completed with true at once for a single server.
     */
    public CompletableFuture<Boolean> confirmedByGroup(long timeoutMillis) {
        return this.kind.confirmed(timeoutMillis);
    }

    /** How long a confirmation by a Sentinel node's sentinels counts (see {@link #unconfirmed()}). */
    public static final long SENTINEL_CONFIRMATION_NANOS = SentinelWatch.CONFIRMATION_BOUND_NANOS;

    /**
     * Of a Sentinel node: drops the connection to the server that answers now and connects to the master that the
     * sentinels name, which is checked before it votes (a promoted replica is quarantined as a restarted server is); of
     * a cluster node, reads its view again. Does nothing for a single server, whose address always leads to the same one.
     * @param reason why, for the log
     */
    public void followMaster(String reason) {
        this.kind.follow(reason);
    }

    /**
     * A reply that says the server answering is a replica now (a Sentinel node's master was replaced), or that a cluster
     * node's view is stale (a failover, slots moved): the node follows.
     */
    private void noteFailure(@Nullable Throwable failure) {
        Throwable cause = ScriptSender.unwrap(failure);
        if (cause != null) {
            this.kind.noteFailure(cause);
        }
    }

    /** A release or clean-up did not reach the node: it is owed. */
    private void owe(OwedReleases.Release release) {
        this.resends.owe(release);
    }

    /** The connection works again: send what is owed, and check the node before it votes. */
    private void ready() {
        this.resends.resend();
        this.check.run();
    }

    /** The connection dropped: the node may come back as another server process, unchecked. */
    private void down() {
        this.vote.disconnected();
    }

    /**
     * Reads what the node says of itself: {@code INFO server} and {@code INFO replication}, and whether it logs
     * every write before answering ({@code CONFIG GET}; false where {@code CONFIG} is disabled); a cluster node's
     * masters, as one server ({@link ServerInfo#ofCluster}).
     */
    public CompletableFuture<ServerInfo> serverInfo() {
        return this.kind.serverInfo();
    }

    /**
     * Reads the node's {@code run_id} ({@code INFO server} alone): which server process answers on this connection. Not
     * for a cluster node, whose servers answer on connections of their own ({@link #serverInfo()} names them all).
     */
    public CompletableFuture<String> runId() {
        if (!(this.kind instanceof ServerNode server)) {
            throw new IllegalStateException("a cluster node has no one run_id: read serverInfo()");
        }
        return server.runId();
    }

    /** Runs a script that is called seldom, by its body, and returns its reply. */
    public CompletableFuture<Object> call(LuaScript script, byte[][] keys, byte[]... args) {
        return this.kind.evalBody(script, ScriptOutputType.MULTI, keys, args);
    }

    /** Runs a script that is called seldom and answers a value (null for Lua's false), by its body, and returns its reply. */
    public CompletableFuture<byte[]> callForValue(LuaScript script, byte[][] keys, byte[]... args) {
        return this.kind.evalBody(script, ScriptOutputType.VALUE, keys, args);
    }

    /**
     * Starts connecting, and keeps retrying in the background while the node is unreachable.
     * @return a future completed after the first attempt, whether it succeeded or not
     */
    CompletableFuture<Void> connect() {
        return this.kind.connect();
    }

    /**
     * Sends {@code SET key token NX PX ttl} and records whether the node set it.
     */
    public void setIfAbsent(byte[] key, byte[] token, long ttlMillis, QuorumCall call, int index) {
        long epoch = this.vote.current().epoch(); // before the vote is read, and before the route: see NodeVote.acrossReconnect
        NodeConnection connection = this.kind.route(key);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (async == null) {
            call.record(index, this.kind.notConnected());
            return;
        }
        NodeReply refusal = this.admission.refusesAcquisition();
        if (refusal != null) {
            call.record(index, refusal);
            return;
        }
        this.awaitingReply.incrementAndGet();
        async.set(key, token, SetArgs.Builder.nx().px(ttlMillis)).whenComplete((reply, failure) -> {
            this.awaitingReply.decrementAndGet();
            noteFailure(failure);
            call.record(index, this.vote.acrossReconnect(epoch, (failure != null) ? NodeReply.failure(failure)
                    : "OK".equals(reply) ? NodeReply.GRANTED : NodeReply.DENIED));
        });
    }

    /**
     * Sends an acquisition script (read or write lock, or a fenced exclusive lock) and records whether the node
     * granted it, with the node's fencing counter when the script returns one (any positive reply is a yes);
     * refused without sending, like a SET, while too many replies are pending.
     */
    public void acquire(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        long epoch = this.vote.current().epoch(); // before the vote is read: see NodeVote.acrossReconnect
        if (!connected(keys)) {
            // Not sent. Never past the vote's check: a connection that opens meanwhile (a first connect, a Sentinel
            // node's new master, a cluster's new master) raises no epoch, and its server is not checked yet.
            call.record(index, this.kind.notConnected());
            return;
        }
        NodeReply refusal = this.admission.refusesAcquisition();
        if (refusal != null) {
            call.record(index, refusal);
            return;
        }
        this.scripts.send(script, keys, args, (reply, failure) -> call.record(index, this.vote.acrossReconnect(epoch, ScriptSender.acquisitionReply(reply, failure))));
    }

    /**
     * Sends an extension script and records how long the node keeps the key ({@link NodeReply#held}), or a
     * no; refused without sending, like a SET, while too many replies are pending, so that an unresponsive
     * node's queue keeps room for every release.
     */
    public void extend(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        NodeReply refusal = connected(keys) ? this.admission.refusesExtension() : null;
        if (refusal != null) {
            call.record(index, refusal);
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
        long epoch = this.vote.current().epoch(); // before the vote is read, and before the route: see NodeVote.acrossReconnect
        byte[][] placed = this.kind.placed(keys);
        NodeConnection connection = this.kind.route(placed[0]);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (connection == null || async == null) {
            NodeReply notConnected = this.kind.notConnected();
            handoff.record(index, notConnected);
            owe(plain);
            release.record(index, notConnected);
            return;
        }
        NodeReply refusal = this.admission.refusesAcquisition();
        if (refusal != null) {
            handoff.record(index, refusal);
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
            handoff.record(index, this.vote.acrossReconnect(epoch, result));
        });
    }

    /** Whether the connection that a command on these keys goes to is open. */
    private boolean connected(byte[][] keys) {
        NodeConnection connection = this.kind.route(this.kind.placed(keys)[0]);
        return connection != null && connection.commands() != null;
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

    /**
     * Stops reconnecting, forgets what is owed, and closes the connection.
     * @return a future completed when the connection is closed
     */
    CompletableFuture<Void> close() {
        this.resends.close();
        return this.kind.close();
    }

}
