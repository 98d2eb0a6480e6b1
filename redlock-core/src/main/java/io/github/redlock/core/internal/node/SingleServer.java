package io.github.redlock.core.internal.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/** A node that is one Redis server: its address always leads to it, and no authority names another master. */
final class SingleServer extends ServerNode {

    private final RedisURI uri;

    SingleServer(RedisURI uri, NodeConnection link) {
        super(link);
        this.uri = uri;
    }

    /** The server says why it refuses a reconnection (e.g. {@code WRONGPASS}: credentials rotated) while it is not connected. */
    @Override
    public void reconnectFailed(@Nullable SocketAddress remote, Throwable cause) {
        if (remote instanceof InetSocketAddress address && !isConnected() && address.getPort() == this.uri.getPort()
                && address.getHostString().equals(this.uri.getHost())) {
            this.link.reconnectFailed(cause);
        }
    }

    @Override
    public List<String> servers() {
        return List.of();
    }

    @Override
    public @Nullable String unconfirmed() {
        return null;
    }

    @Override
    public CompletableFuture<Boolean> confirmed(long timeoutMillis) {
        return CompletableFuture.completedFuture(true);
    }

    @Override
    public void follow(String reason) {
        // One server: nothing to follow.
    }

    @Override
    public void noteFailure(Throwable cause) {
        // One server: no reply says to go elsewhere.
    }

}
