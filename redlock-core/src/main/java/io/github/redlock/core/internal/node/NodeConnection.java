package io.github.redlock.core.internal.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * The connection to one node and its life: the first connect and its retries while the node is unreachable
 * (Lettuce reconnects an established connection by itself), the refusal of a client without the options
 * Redlock relies on, and the loading of the scripts on every (re)connection. Tells its owner when the
 * connection is ready again, so that what could not be sent meanwhile goes.
 */
public final class NodeConnection implements RedisConnectionStateListener {

    private static final System.Logger logger = System.getLogger(NodeConnection.class.getName());

    private static final Delay CONNECT_RETRY = Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2,
            TimeUnit.MILLISECONDS);

    private final NodeConnector connector;

    private final RedisURI uri;

    private final EventExecutorGroup scheduler;

    /** Run each time the scripts are loaded on a (re)connection. */
    private final Runnable onReady;

    /** Run each time the connection drops. */
    private final Runnable onDown;

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;

    private volatile @Nullable RedisAsyncCommands<byte[], byte[]> commands;

    private volatile boolean closed;

    /** Why the last connection attempt failed, while the node has had no connection since; else null. */
    private volatile @Nullable Throwable lastFailure;

    /** Whether {@link #reconnect} replaces the connection now. */
    private final AtomicBoolean reconnecting = new AtomicBoolean();

    /** The address ({@code host:port}) of the server that the current connection reached, when known; else null. */
    @Nullable String address() {
        return this.address;
    }

    private static @Nullable String format(@Nullable SocketAddress remote) {
        return (remote instanceof InetSocketAddress inet) ? inet.getHostString() + ":" + inet.getPort() : null;
    }

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

    private volatile @Nullable String loggedFailure; // the last failure logged, so that a repeat is not

    /** The address ({@code host:port}) of the server the current connection reached, once known; else null. */
    private volatile @Nullable String address;

    NodeConnection(NodeConnector connector, RedisURI uri, EventExecutorGroup scheduler, Runnable onReady, Runnable onDown) {
        this.connector = connector;
        this.uri = uri;
        this.scheduler = scheduler;
        this.onReady = onReady;
        this.onDown = onDown;
    }

    /** The commands of the current connection, or null before the first one succeeded (and after close). */
    @Nullable RedisAsyncCommands<byte[], byte[]> commands() {
        return this.commands;
    }

    /** The reply of this node while it has no connection, with why. */
    NodeReply notConnected() {
        return this.notConnected;
    }

    /** Why the last connection attempt failed, while none has succeeded since; else null. */
    @Nullable Throwable lastFailure() {
        return this.lastFailure;
    }

    boolean scriptsLoaded() {
        return this.scriptsLoaded;
    }

    boolean isClosed() {
        return this.closed;
    }

    /** Whether the node's connection is up now. */
    boolean isConnected() {
        StatefulRedisConnection<byte[], byte[]> current = this.connection;
        return current != null && current.isOpen();
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
        CompletionStage<StatefulRedisConnection<byte[], byte[]>> stage;
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> attempt;
        try {
            stage = this.connector.connect(this.uri);
            attempt = stage.toCompletableFuture();
        }
        catch (RuntimeException ex) {
            stage = null;
            attempt = CompletableFuture.failedFuture(ex);
        }
        CompletionStage<StatefulRedisConnection<byte[], byte[]>> opened = stage;
        attempt.whenComplete((connected, failure) -> {
            if (failure == null && connected != null) {
                String refused = checkOptions(connected.getOptions());
                if (refused != null || this.closed) {
                    connected.closeAsync();
                    this.notConnected = NodeReply.notConnected((refused != null) ? refused : "closed");
                    this.firstAttempt.complete(null);
                    return; // a misconfigured connector is not retried: it would only fail the same way
                }
                this.lastFailure = null;
                // Lettuce's own connect says where it went (a Sentinel node: the master the sentinels named).
                this.address = (opened instanceof ConnectionFuture<?> future) ? format(future.getRemoteAddress()) : null;
                ((RedisChannelHandler<?, ?>) connected).addListener(this);
                // From now on Lettuce reconnects this connection itself: a later outage is a lost connection.
                this.notConnected = NodeReply.notConnected("not connected: the connection was lost, reconnecting");
                this.commands = connected.async();
                this.connection = connected;
                loadScripts(0);
            }
            else if (!this.closed) {
                Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
                String reason = "cannot connect: " + ((cause != null) ? Uris.describe(cause) : "no connection");
                if (!reason.equals(this.loggedFailure)) { // logged when it changes, not at every retry
                    this.loggedFailure = reason;
                    logger.log(System.Logger.Level.WARNING, "Redis node " + Uris.nodeName(this.uri) + " " + reason
                            + "; retrying in the background, the node counts as \"no\" meanwhile");
                }
                this.notConnected = NodeReply.notConnected(reason);
                this.lastFailure = cause;
                long delay = CONNECT_RETRY.createDelay(++this.failedConnects).toMillis();
                this.scheduler.schedule(this::attemptConnect, delay, TimeUnit.MILLISECONDS);
            }
            this.firstAttempt.complete(null);
        });
    }

    private static @Nullable String checkOptions(ClientOptions options) {
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
            this.address = format(socketAddress);
            // What a failed reconnection said is over; the next loss is logged again.
            this.notConnected = NodeReply.notConnected("not connected: the connection was lost, reconnecting");
            this.lastFailure = null;
            this.loggedFailure = null;
            loadScripts(0);
        }
    }

    /** Lettuce reports that this node's connection dropped: the server may come back without scripts. */
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        if (handler == this.connection) {
            this.scriptsLoaded = false;
            this.onDown.run();
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
                        this.onReady.run(); // the connection works: what could not be sent before goes now
                    }
                    else if (!this.closed && isConnected()) {
                        // Rejected while the handshake runs, or while the node loads its data (LOADING): keep trying
                        // while connected, backing off to a second; a reconnect starts again.
                        this.scheduler.schedule(() -> loadScripts(attempt + 1), Math.min(1000, 50L << Math.min(attempt, 5)),
                                TimeUnit.MILLISECONDS);
                    }
                });
    }

    /**
     * Lettuce failed to reconnect the lost connection: the node says why until it is connected again, and the log says
     * so when the reason changes (not at every attempt).
     */
    void reconnectFailed(Throwable cause) {
        String reason = "not connected: reconnecting fails: " + Uris.describe(cause);
        this.notConnected = NodeReply.notConnected(reason);
        this.lastFailure = cause;
        String logged = this.loggedFailure;
        if (!reason.equals(logged)) {
            this.loggedFailure = reason;
            logger.log(System.Logger.Level.WARNING, "Redis node " + Uris.nodeName(this.uri) + " " + reason
                    + "; retrying in the background, the node counts as \"no\" meanwhile");
        }
    }

    /**
     * Drops the current connection and opens a new one, which resolves the node's address again: a Sentinel node's
     * master changed. Does nothing before the first connection, after {@link #close()}, or while a reconnect runs.
     * The node does not vote from now until the new connection is checked, and a late reply from the former master
     * counts as an error ({@code onDown}).
     * @param reason why, for the log and for the node's status meanwhile
     */
    void reconnect(String reason) {
        StatefulRedisConnection<byte[], byte[]> current = this.connection;
        if (this.closed || current == null || !this.reconnecting.compareAndSet(false, true)) {
            return;
        }
        this.connection = null;
        this.commands = null;
        this.scriptsLoaded = false;
        this.notConnected = NodeReply.notConnected("not connected: " + reason + "; reconnecting");
        this.onDown.run();
        logger.log(System.Logger.Level.INFO, "Redis node " + Uris.nodeName(this.uri) + " reconnects: " + reason);
        current.closeAsync().whenComplete((closedNow, failure) -> {
            this.failedConnects = 0; // no attempt runs: the one that opened this connection succeeded
            this.reconnecting.set(false);
            attemptConnect();
        });
    }

    /**
     * Stops reconnecting and closes the connection.
     * @return a future completed when the connection is closed
     */
    CompletableFuture<Void> close() {
        this.closed = true;
        StatefulRedisConnection<byte[], byte[]> current = this.connection;
        this.connection = null;
        this.commands = null;
        return (current != null) ? current.closeAsync() : CompletableFuture.completedFuture(null);
    }

}
