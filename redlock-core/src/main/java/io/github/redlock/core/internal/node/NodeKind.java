package io.github.redlock.core.internal.node;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.core.internal.script.LuaScript;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * What sets the kinds of Redlock node apart: a single server ({@link SingleServer}), a Sentinel group
 * ({@link SentinelGroup}), a Redis Cluster ({@link ClusterShards}). Each owns its connections, routes a command to the
 * server that must answer it, says whether its group's authority (the sentinels, the other masters) confirms that
 * server as the master, and follows failovers. {@link RedisNodeClient} holds what every kind shares: the commands, the
 * vote, the bound on pending replies, and the releases owed.
 */
sealed interface NodeKind permits ServerNode, ClusterShards {

    /**
     * Starts connecting, and keeps retrying in the background while the node is unreachable.
     * @return a future completed after the first attempt, whether it succeeded or not
     */
    CompletableFuture<Void> connect();

    /** Stops reconnecting and closes every connection; the future completes once they are closed. */
    CompletableFuture<Void> close();

    /** Whether every connection the node needs is up. */
    boolean isConnected();

    /**
     * Whether what is owed may be resent now: a server's connection is up with its scripts loaded; a cluster's masters
     * are all connected (a master whose scripts are not loaded yet gets them by their body).
     */
    boolean mayResend();

    /** The reply of the node while a connection it needs is not up, with why. */
    NodeReply notConnected();

    /** Why the last attempt to connect failed, while the node is not connected; else null. */
    @Nullable Throwable lastFailure();

    /** Lettuce failed to reconnect a connection to {@code remote}: the connection there says why, if it is one of the node's. */
    void reconnectFailed(@Nullable SocketAddress remote, Throwable cause);

    /** The connection that a command on these keys (as {@link #placed}) goes to, or null when none serves them now. */
    @Nullable NodeConnection route(byte[] key);

    /** The keys as the node stores them (a cluster's companion keys are tagged into their lock's slot). */
    byte[][] placed(byte[][] keys);

    /** The servers that answer for the node, where they differ from its name; else empty. */
    List<String> servers();

    /**
     * Why the node may not vote now for want of its group's confirmation that the server it votes through is the
     * master; null when it has it, and always for a single server. Called on every acquisition and extension: cheap.
     */
    @Nullable String unconfirmed();

    /** A future completed with true as soon as {@link #unconfirmed()} is null, or with false after {@code timeoutMillis}. */
    CompletableFuture<Boolean> confirmed(long timeoutMillis);

    /** Leaves the server that answers now for the master its group names (does nothing for a single server). */
    void follow(String reason);

    /** A command failed so: a reply that says the server is no longer the master, or the view is stale, makes it follow. */
    void noteFailure(Throwable cause);

    /** What the node's server (a cluster's masters, as one) says of itself, for the node's check. */
    CompletableFuture<ServerInfo> serverInfo();

    /**
     * Runs a script that is called seldom, by its body, where its first key is served, and returns its reply; fails
     * with "not connected" while no connection serves it.
     */
    default <T> CompletableFuture<T> evalBody(LuaScript script, ScriptOutputType output, byte[][] keys, byte[]... args) {
        byte[][] placed = placed(keys);
        NodeConnection connection = route(placed[0]);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (async == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        }
        return async.<T>eval(script.body(), output, placed, args).toCompletableFuture();
    }

}
