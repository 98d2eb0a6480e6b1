package io.github.redlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * One Redis master, reached through one multiplexed asynchronous Lettuce connection. Commands are never
 * queued while the node is unreachable: before the first connection they are answered "not connected"
 * at once, later Lettuce rejects them (the client options say so). Replies are recorded into a
 * {@link QuorumCall}, which also stops waiting at the node timeout. Commands are never cancelled, so each
 * one reaches the node in the order it was queued on the connection.
 */
final class RedisNodeClient {

    private static final Delay CONNECT_RETRY = Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2,
            TimeUnit.MILLISECONDS);

    private final RedisClient client;

    private final RedisURI uri;

    private final String name;

    private final EventExecutorGroup scheduler;

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private volatile StatefulRedisConnection<String, String> connection;

    private volatile RedisAsyncCommands<String, String> commands;

    private volatile boolean closed;

    /**
     * Whether this connection has loaded the scripts on the server (SCRIPT LOAD). Cleared on every
     * disconnect; until set again, scripts are sent by body. EVALSHA alone is not enough: a node that
     * restarted empty answers NOSCRIPT, and if that answer comes after the node timeout (a frozen node),
     * no fallback would follow, so a late-applied SET would survive its clean-up.
     */
    private volatile boolean scriptsLoaded;

    private int failedConnects; // touched only by the connect callbacks, one at a time

    RedisNodeClient(RedisClient client, RedisURI uri, EventExecutorGroup scheduler) {
        this.client = client;
        this.uri = uri;
        this.name = (uri.getSocket() != null) ? uri.getSocket() : uri.getHost() + ":" + uri.getPort();
        this.scheduler = scheduler;
    }

    /** The node as lock errors name it: {@code host:port}. */
    String name() {
        return this.name;
    }

    /** Whether the node's connection is up now. */
    boolean isConnected() {
        StatefulRedisConnection<String, String> current = this.connection;
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
        this.client.connectAsync(StringCodec.UTF8, this.uri).whenComplete((connected, failure) -> {
            if (failure == null) {
                if (this.closed) {
                    connected.closeAsync();
                }
                else {
                    this.commands = connected.async();
                    this.connection = connected;
                    loadScripts(0);
                }
            }
            else if (!this.closed) {
                long delay = CONNECT_RETRY.createDelay(++this.failedConnects).toMillis();
                this.scheduler.schedule(this::attemptConnect, delay, TimeUnit.MILLISECONDS);
            }
            this.firstAttempt.complete(null);
        });
    }

    /** Lettuce reports a (re)connection of this node's connection; the handshake may still be running. */
    void onConnected(Object handler) {
        if (handler == this.connection) {
            loadScripts(0);
        }
    }

    /** Lettuce reports that this node's connection dropped: the server may come back without scripts. */
    void onDisconnected(Object handler) {
        if (handler == this.connection) {
            this.scriptsLoaded = false;
        }
    }

    private void loadScripts(int attempt) {
        RedisAsyncCommands<String, String> async = this.commands;
        if (this.closed || async == null) {
            return;
        }
        CompletableFuture.allOf(async.scriptLoad(LuaScript.RELEASE.body()).toCompletableFuture(),
                async.scriptLoad(LuaScript.EXTEND.body()).toCompletableFuture()).whenComplete((loaded, failure) -> {
                    if (failure == null) {
                        this.scriptsLoaded = true;
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
    void setIfAbsent(String key, String token, long ttlMillis, QuorumCall call, int index) {
        RedisAsyncCommands<String, String> async = this.commands;
        if (async == null) {
            call.record(index, NodeReply.NOT_CONNECTED);
            return;
        }
        async.set(key, token, SetArgs.Builder.nx().px(ttlMillis)).whenComplete((reply, failure) -> call.record(index,
                (failure != null) ? NodeReply.failure(failure)
                        : "OK".equals(reply) ? NodeReply.GRANTED : NodeReply.DENIED));
    }

    /**
     * Runs a script by SHA once this connection loaded it (by body before), falling back to the body on
     * NOSCRIPT, and records a reply of 1 as a yes.
     */
    void eval(LuaScript script, String[] keys, String[] args, QuorumCall call, int index) {
        RedisAsyncCommands<String, String> async = this.commands;
        if (async == null) {
            call.record(index, NodeReply.NOT_CONNECTED);
            return;
        }
        if (!this.scriptsLoaded) {
            async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args)
                    .whenComplete((reply, failure) -> call.record(index, scriptReply(reply, failure)));
            return;
        }
        async.<Long>evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args).whenComplete((reply, failure) -> {
            if (unwrap(failure) instanceof RedisNoScriptException) {
                // Same connection, so it still runs after any command sent before it (e.g. a late SET).
                async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args)
                        .whenComplete((retried, again) -> call.record(index, scriptReply(retried, again)));
            }
            else {
                call.record(index, scriptReply(reply, failure));
            }
        });
    }

    private NodeReply scriptReply(Long reply, Throwable failure) {
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
        StatefulRedisConnection<String, String> current = this.connection;
        this.connection = null;
        this.commands = null;
        return (current != null) ? current.closeAsync() : CompletableFuture.completedFuture(null);
    }

    private static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

}
