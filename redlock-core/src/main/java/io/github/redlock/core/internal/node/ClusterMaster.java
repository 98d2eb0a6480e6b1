package io.github.redlock.core.internal.node;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.lettuce.core.RedisURI;

/** One master of a cluster node's view, and the connection to it. */
final class ClusterMaster {

    /** {@code host:port}, as the view names it. */
    final String address;

    final RedisURI uri;

    final NodeConnection connection;

    /** Completed once the first attempt to connect decided, whether it succeeded or not. */
    final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    /**
     * @param connection opens the connection to this master (given it, so that the connection can name its master when
     * it says that it is ready or dropped)
     */
    ClusterMaster(String address, RedisURI uri, Function<ClusterMaster, NodeConnection> connection) {
        this.address = address;
        this.uri = uri;
        this.connection = connection.apply(this);
    }

    void connect() {
        this.connection.connect().whenComplete((done, failure) -> this.firstAttempt.complete(null));
    }

}
