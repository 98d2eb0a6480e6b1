package io.github.redlock.core.internal.node;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * A node that one connection serves: a single server, or a Sentinel group's current master. Every command goes over
 * that connection, with the keys as given.
 */
abstract sealed class ServerNode implements NodeKind permits SingleServer, SentinelGroup {

    /** The connection to the server (a Sentinel group's: to the master the sentinels name). */
    final NodeConnection link;

    ServerNode(NodeConnection link) {
        this.link = link;
    }

    @Override
    public CompletableFuture<Void> connect() {
        return this.link.connect();
    }

    @Override
    public CompletableFuture<Void> close() {
        return this.link.close();
    }

    @Override
    public boolean isConnected() {
        return this.link.isConnected();
    }

    @Override
    public boolean mayResend() {
        return this.link.isConnected() && this.link.scriptsLoaded();
    }

    @Override
    public NodeReply notConnected() {
        return this.link.notConnected();
    }

    @Override
    public @Nullable Throwable lastFailure() {
        return this.link.lastFailure();
    }

    @Override
    public NodeConnection route(byte[] key) {
        return this.link;
    }

    @Override
    public byte[][] placed(byte[][] keys) {
        return keys;
    }

    /**
     * Reads what the server says of itself: {@code INFO server} and {@code INFO replication}, and whether it logs
     * every write before answering ({@code CONFIG GET}; false where {@code CONFIG} is disabled).
     */
    @Override
    public CompletableFuture<ServerInfo> serverInfo() {
        RedisAsyncCommands<byte[], byte[]> async = this.link.commands();
        if (async == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        }
        CompletableFuture<String> server = async.info("server").toCompletableFuture();
        CompletableFuture<String> replication = async.info("replication").toCompletableFuture();
        // One parameter per CONFIG GET: Redis before 7 refuses several, and the node would never count as durable.
        CompletableFuture<Boolean> durable = async.configGet("appendonly").toCompletableFuture()
                .thenCombine(async.configGet("appendfsync").toCompletableFuture(),
                        (appendonly, appendfsync) -> "yes".equals(appendonly.get("appendonly")) && "always".equals(appendfsync.get("appendfsync")))
                .exceptionally((failure) -> false);
        return server.thenCombine(replication, (a, b) -> a + "\n" + b).thenCombine(durable, ServerInfo::parse);
    }

    /** Reads the server's {@code run_id} ({@code INFO server} alone): which server process answers on the connection. */
    CompletableFuture<String> runId() {
        RedisAsyncCommands<byte[], byte[]> async = this.link.commands();
        if (async == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        }
        return async.info("server").toCompletableFuture().thenApply((info) -> ServerInfo.parse(info, false).runId());
    }

}
