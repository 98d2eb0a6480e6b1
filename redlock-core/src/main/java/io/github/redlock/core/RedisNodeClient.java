package io.github.redlock.core;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * One Redis master, reached through one multiplexed asynchronous Lettuce connection. Commands are never
 * queued while the node is unreachable: before the first connection they are answered "not connected"
 * at once, later Lettuce rejects them (the client options say so). Replies are recorded into a
 * {@link QuorumCall}, which also stops waiting at the node timeout. Commands are never cancelled, so each
 * one reaches the node in the order it was queued on the connection.
 * <p>
 * What may be queued for a node is bounded so that releases always fit: acquisitions and extensions are
 * refused without sending while {@link #SET_LIMIT} replies are pending, releases and clean-ups never are.
 * A release or clean-up that could not be sent (the node was disconnected) is owed: it is sent again once
 * the node is connected and has its scripts, as long as the key could still exist, up to
 * {@link #OWED_LIMIT} per node; past that the key expires with its ttl, and a warning says so.
 */
final class RedisNodeClient implements RedisConnectionStateListener {

    /**
     * Commands awaiting a reply past which no new SET is sent. It is half of Lettuce's per-connection bound,
     * and follow-ups go only to nodes that received the SET, so every SET sent keeps room for its clean-up
     * or release: a frozen node that wakes up deletes every late key, and Lettuce never has to refuse (and
     * log) a command.
     */
    static final int SET_LIMIT = NodeConnections.REQUEST_QUEUE_SIZE / 2;

    /** Releases and clean-ups owed to one node at most; more are dropped (their keys expire with their ttl). */
    static final int OWED_LIMIT = 10_000;

    private static final System.Logger logger = System.getLogger(RedisNodeClient.class.getName());

    private static final Delay CONNECT_RETRY = Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2,
            TimeUnit.MILLISECONDS);

    private final NodeConnector connector;

    private final RedisURI uri;

    private final String name;

    private final EventExecutorGroup scheduler;

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private volatile StatefulRedisConnection<byte[], byte[]> connection;

    private volatile RedisAsyncCommands<byte[], byte[]> commands;

    private volatile boolean closed;

    /** The reply of this node while it has no connection: says why the last attempt failed. */
    private volatile NodeReply notConnected = NodeReply.notConnected("not connected yet");

    /**
     * Whether this connection has loaded the scripts on the server (SCRIPT LOAD). Cleared on every
     * disconnect; until set again, scripts are sent by body. EVALSHA alone is not enough: a node that
     * restarted empty answers NOSCRIPT, and if that answer comes after the node timeout (a frozen node),
     * no fallback would follow, so a late-applied SET would survive its clean-up.
     */
    private volatile boolean scriptsLoaded;

    private int failedConnects; // touched only by the connect callbacks, one at a time

    /** Commands sent and not yet answered: grows while the node is frozen. */
    private final AtomicInteger awaitingReply = new AtomicInteger();

    private final NodeReply unresponsive;

    /** Releases and clean-ups that could not be sent, to send once the node is back. */
    private final ConcurrentLinkedQueue<Owed> owed = new ConcurrentLinkedQueue<>();

    private final AtomicInteger owedCount = new AtomicInteger();

    /** When a dropped owed release was last logged; 0 before the first. */
    private final AtomicLong droppedLoggedAt = new AtomicLong();

    RedisNodeClient(NodeConnector connector, RedisURI uri, EventExecutorGroup scheduler) {
        this.connector = connector;
        this.uri = uri;
        this.name = nameOf(uri);
        this.scheduler = scheduler;
        this.unresponsive = NodeReply.notConnected(SET_LIMIT + " commands await a reply (node frozen or overloaded)");
    }

    /** How lock errors name a node: {@code host:port} (or the socket path). */
    static String nameOf(RedisURI uri) {
        return (uri.getSocket() != null) ? uri.getSocket() : uri.getHost() + ":" + uri.getPort();
    }

    /** The node as lock errors name it: {@code host:port}. */
    String name() {
        return this.name;
    }

    /** Whether the node's connection is up now. */
    boolean isConnected() {
        StatefulRedisConnection<byte[], byte[]> current = this.connection;
        return current != null && current.isOpen();
    }

    /** The current connection, or null before the first one succeeded. */
    StatefulRedisConnection<byte[], byte[]> connection() {
        return this.connection;
    }

    /**
     * Starts connecting, and keeps retrying in the background while the node is unreachable.
     * @return a future completed after the first attempt, whether it succeeded or not
     */
    CompletableFuture<Void> connect() {
        attemptConnect();
        return this.firstAttempt;
    }

    private void attemptConnect() {
        if (this.closed) {
            return;
        }
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> attempt;
        try {
            attempt = this.connector.connect(this.uri).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            attempt = CompletableFuture.failedFuture(ex);
        }
        attempt.whenComplete((connected, failure) -> {
            if (failure == null && connected != null) {
                String refused = checkOptions(connected.getOptions());
                if (refused != null || this.closed) {
                    connected.closeAsync();
                    this.notConnected = NodeReply.notConnected((refused != null) ? refused : "closed");
                    this.firstAttempt.complete(null);
                    return; // a misconfigured connector is not retried: it would only fail the same way
                }
                ((RedisChannelHandler<?, ?>) connected).addListener(this);
                this.commands = connected.async();
                this.connection = connected;
                loadScripts(0);
            }
            else if (!this.closed) {
                Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
                this.notConnected = NodeReply.notConnected("cannot connect: " + ((cause != null) ? cause.getMessage() : "no connection"));
                long delay = CONNECT_RETRY.createDelay(++this.failedConnects).toMillis();
                this.scheduler.schedule(this::attemptConnect, delay, TimeUnit.MILLISECONDS);
            }
            this.firstAttempt.complete(null);
        });
    }

    private static String checkOptions(ClientOptions options) {
        if (options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
            return "refused: the connection's client must reject commands while disconnected "
                    + "(use NodeConnector.clientOptions(nodeTimeout) for its ClientOptions)";
        }
        return null;
    }

    /** Lettuce reports a (re)connection of this node's connection; the handshake may still be running. */
    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
        if (handler == this.connection) {
            loadScripts(0);
        }
    }

    /** Lettuce reports that this node's connection dropped: the server may come back without scripts. */
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        if (handler == this.connection) {
            this.scriptsLoaded = false;
        }
    }

    private void loadScripts(int attempt) {
        RedisAsyncCommands<byte[], byte[]> async = this.commands;
        if (this.closed || async == null) {
            return;
        }
        CompletableFuture.allOf(LuaScript.ALL.stream().map((script) -> async.scriptLoad(script.body()).toCompletableFuture())
                .toArray(CompletableFuture[]::new)).whenComplete((loaded, failure) -> {
                    if (failure == null) {
                        this.scriptsLoaded = true;
                        resendOwed(); // the connection works: what could not be sent before goes now
                    }
                    else if (attempt < 100 && !this.closed) {
                        // Rejected while the handshake runs, or the node went away: a later reconnect retries too.
                        this.scheduler.schedule(() -> loadScripts(attempt + 1), 50, TimeUnit.MILLISECONDS);
                    }
                });
    }

    /**
     * Sends {@code SET key token NX PX ttl} and records whether the node set it.
     */
    void setIfAbsent(byte[] key, byte[] token, long ttlMillis, QuorumCall call, int index) {
        RedisAsyncCommands<byte[], byte[]> async = this.commands;
        if (async == null) {
            call.record(index, this.notConnected);
            return;
        }
        if (refusedAsUnresponsive(call, index)) {
            return;
        }
        this.awaitingReply.incrementAndGet();
        async.set(key, token, SetArgs.Builder.nx().px(ttlMillis)).whenComplete((reply, failure) -> {
            this.awaitingReply.decrementAndGet();
            call.record(index, (failure != null) ? NodeReply.failure(failure)
                    : "OK".equals(reply) ? NodeReply.GRANTED : NodeReply.DENIED);
        });
    }

    /**
     * Sends an acquisition script (read or write lock) and records whether the node granted it; refused
     * without sending, like a SET, while too many replies are pending.
     */
    void acquire(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        if (this.commands != null && refusedAsUnresponsive(call, index)) {
            return;
        }
        eval(script, keys, args, call, index);
    }

    /**
     * Sends an extension script and records how long the node keeps the key ({@link NodeReply#held}), or a
     * no; refused without sending, like a SET, while too many replies are pending, so that an unresponsive
     * node's queue keeps room for every release.
     */
    void extend(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        if (this.commands != null && refusedAsUnresponsive(call, index)) {
            return;
        }
        send(script, keys, args, call, index, (reply, failure) -> call.record(index, (failure == null && reply != null && reply > 0)
                ? NodeReply.held(reply) : scriptReply(reply, failure)));
    }

    /**
     * Sends a release or clean-up script and records whether it deleted something. Never refused for pending
     * replies; if the node rejects it because it is disconnected, it is owed and sent again when the node
     * is back, until {@code owedUntilNanos} ({@link System#nanoTime()}), after which the key cannot exist.
     */
    void release(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index, long owedUntilNanos) {
        Owed entry = new Owed(script, keys, args, owedUntilNanos);
        send(script, keys, args, call, index, (reply, failure) -> {
            NodeReply result = scriptReply(reply, failure);
            if (result.outcome() == NodeReply.Outcome.REJECTED) {
                owe(entry);
            }
            call.record(index, result);
        });
    }

    /**
     * Refuses an acquisition without sending it while {@link #SET_LIMIT} replies are pending: nothing sent, so
     * no clean-up owed; nothing logged or thrown.
     */
    private boolean refusedAsUnresponsive(QuorumCall call, int index) {
        if (this.awaitingReply.get() < SET_LIMIT) {
            return false;
        }
        call.record(index, this.unresponsive);
        return true;
    }

    /**
     * Runs a script and records a reply of 1 as a yes.
     */
    void eval(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index) {
        send(script, keys, args, call, index, (reply, failure) -> call.record(index, scriptReply(reply, failure)));
    }

    /**
     * Runs a script by SHA once this connection loaded it (by body before), falling back to the body on
     * NOSCRIPT, and hands its reply to {@code done}; without a connection, records the node as not connected.
     */
    private void send(LuaScript script, byte[][] keys, byte[][] args, QuorumCall call, int index, BiConsumer<Long, Throwable> done) {
        RedisAsyncCommands<byte[], byte[]> async = this.commands;
        if (async == null) {
            if (call != null) {
                call.record(index, this.notConnected);
            }
            return;
        }
        this.awaitingReply.incrementAndGet();
        if (!this.scriptsLoaded) {
            async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args).whenComplete((reply, failure) -> {
                this.awaitingReply.decrementAndGet();
                done.accept(reply, failure);
            });
            return;
        }
        async.<Long>evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args).whenComplete((reply, failure) -> {
            this.awaitingReply.decrementAndGet();
            if (unwrap(failure) instanceof RedisNoScriptException) {
                // Same connection, so it still runs after any command sent before it (e.g. a late SET).
                this.awaitingReply.incrementAndGet();
                async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args).whenComplete((retried, again) -> {
                    this.awaitingReply.decrementAndGet();
                    done.accept(retried, again);
                });
            }
            else {
                done.accept(reply, failure);
            }
        });
    }

    /** Keeps a release that could not be sent, to send when the node is back (bounded; see the class). */
    private void owe(Owed entry) {
        if (this.closed || entry.untilNanos() - System.nanoTime() <= 0) {
            return;
        }
        if (this.owedCount.incrementAndGet() > OWED_LIMIT) {
            this.owedCount.decrementAndGet();
            long now = System.nanoTime();
            long last = this.droppedLoggedAt.get();
            if ((last == 0 || now - last >= TimeUnit.MINUTES.toNanos(1)) && this.droppedLoggedAt.compareAndSet(last, (now == 0) ? 1 : now)) {
                logger.log(System.Logger.Level.WARNING, "Node " + this.name + " is unreachable with " + OWED_LIMIT + " releases "
                        + "waiting to be sent; further keys there are left to expire with their ttl");
            }
            return;
        }
        this.owed.add(entry);
        if (this.scriptsLoaded && isConnected()) {
            // Connected again meanwhile (or the node refused for its queue): try again shortly, off this call's thread.
            this.scheduler.schedule(this::resendOwed, 50, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the owed releases whose keys may still exist; one rejected again is owed again. */
    private void resendOwed() {
        long now = System.nanoTime();
        for (int left = this.owedCount.get(); left > 0; left--) {
            Owed entry = this.owed.poll();
            if (entry == null) {
                return;
            }
            this.owedCount.decrementAndGet();
            if (entry.untilNanos() - now > 0) {
                send(entry.script(), entry.keys(), entry.args(), null, 0, (reply, failure) -> {
                    if (scriptReply(reply, failure).outcome() == NodeReply.Outcome.REJECTED) {
                        owe(entry);
                    }
                });
            }
        }
    }

    /** A release or clean-up that could not be sent, and until when its key could exist. */
    private record Owed(LuaScript script, byte[][] keys, byte[][] args, long untilNanos) {
    }

    private static NodeReply scriptReply(Long reply, Throwable failure) {
        if (failure != null) {
            return NodeReply.failure(failure);
        }
        return (reply != null && reply == 1L) ? NodeReply.GRANTED : NodeReply.DENIED;
    }

    /**
     * Stops reconnecting and closes the connection.
     * @return a future completed when the connection is closed
     */
    CompletableFuture<Void> close() {
        this.closed = true;
        this.owed.clear();
        this.owedCount.set(0);
        StatefulRedisConnection<byte[], byte[]> current = this.connection;
        this.connection = null;
        this.commands = null;
        return (current != null) ? current.closeAsync() : CompletableFuture.completedFuture(null);
    }

    private static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

}
