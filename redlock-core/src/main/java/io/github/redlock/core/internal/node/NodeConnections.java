package io.github.redlock.core.internal.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.RedlockClientResources;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timer;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * The Lettuce side shared by all nodes: one set of event loops and one timer (created here, or given by
 * the application), the connector that opens each node's connection (a {@link RedisClient} of its own
 * with {@link NodeConnector#clientOptions(Duration) the options Redlock relies on}, unless the
 * application gives one), and the closing of all of it. The node timeout is enforced per quorum call on
 * the shared timer, not by Lettuce: Lettuce silently drops a timed-out command that it had not written
 * yet, which could drop the clean-up that follows a SET already on the wire.
 */
public final class NodeConnections {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

    private final ClientResources resources;

    /** The resources this class created (and closes), or null when the application gave them. */
    private final @Nullable RedlockClientResources ownResources;

    private final @Nullable RedisClient ownClient;

    private final NodeConnector connector;

    /** The subscription to Lettuce's failed reconnections, or null before the nodes connect. */
    private volatile @Nullable Disposable reconnects;

    private NodeConnections(ClientResources resources, @Nullable RedlockClientResources ownResources, @Nullable RedisClient ownClient,
            NodeConnector connector) {
        this.resources = resources;
        this.ownResources = ownResources;
        this.ownClient = ownClient;
        this.connector = connector;
    }

    public static NodeConnections create(@Nullable ClientResources shared, @Nullable NodeConnector connector, Duration nodeTimeout,
            @Nullable SslOptions sslOptions) {
        RedlockClientResources created = null;
        ClientResources resources = shared;
        if (resources == null) {
            created = RedlockClientResources.create();
            resources = created.resources();
        }
        RedisClient client = null;
        if (connector == null) {
            client = RedisClient.create(resources);
            ClientOptions.Builder options = NodeConnector.clientOptions(nodeTimeout);
            if (sslOptions != null) {
                options.sslOptions(sslOptions);
            }
            client.setOptions(options.build());
            connector = new OwnConnector(client);
        }
        return new NodeConnections(resources, created, client, connector);
    }

    public NodeConnector connector() {
        return this.connector;
    }

    /** The timer that fires node timeouts. */
    public Timer timer() {
        return this.resources.timer();
    }

    /** Lettuce's computation executors: connect retries and follow-up commands sent off I/O threads. */
    public EventExecutorGroup scheduler() {
        return this.resources.eventExecutorGroup();
    }

    /**
     * Starts connecting every node at once and waits, a bounded time, for each first attempt, so that
     * reachable nodes are usable when {@code build()} returns. Unreachable ones keep retrying.
     */
    public void connectAll(RedisNodeClient[] nodes, Duration nodeTimeout) {
        watchReconnects(nodes);
        List<CompletableFuture<Void>> attempts = new ArrayList<>(nodes.length);
        for (RedisNodeClient node : nodes) {
            attempts.add(node.connect());
        }
        long bound = Math.max(nodeTimeout.toMillis(), 1000) + 1000;
        try {
            CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).get(bound, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            // Slow or unreachable nodes keep connecting in the background; they count as "no" meanwhile.
        }
    }

    /**
     * Tells each node why Lettuce's reconnections of a lost connection to it fail (a refused password, a certificate),
     * from the events Lettuce publishes on the shared resources' event bus: the reconnection is Lettuce's, so its
     * failure reaches nobody else. Events of other connections to the same address (the health's, the release
     * messages') say the same of the node.
     */
    private void watchReconnects(RedisNodeClient[] nodes) {
        this.reconnects = this.resources.eventBus().get().ofType(ReconnectFailedEvent.class).subscribe((event) -> {
            for (RedisNodeClient node : nodes) {
                node.reconnectFailed(event.remoteAddress(), event.getCause());
            }
        }, (failure) -> { }); // an event bus that fails is no reason to stop the lock
    }

    /** Closes the node connections, and the client and resources this class created. Never throws. */
    public void close(RedisNodeClient[] nodes) {
        Disposable watch = this.reconnects;
        if (watch != null) {
            watch.dispose();
        }
        try {
            CompletableFuture.allOf(Arrays.stream(nodes).map(RedisNodeClient::close).toArray(CompletableFuture[]::new))
                    .get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            if (this.ownClient != null) {
                this.ownClient.shutdown(Duration.ZERO, CLOSE_TIMEOUT);
            }
            if (this.ownResources != null) {
                this.ownResources.close();
            }
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Opens connections with the {@code Redlock}'s own Lettuce client. */
    private record OwnConnector(RedisClient client) implements NodeConnector {

        @Override
        public CompletionStage<StatefulRedisConnection<byte[], byte[]>> connect(RedisURI node) {
            return this.client.connectAsync(ByteArrayCodec.INSTANCE, node);
        }

        @Override
        public CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub(RedisURI node) {
            return this.client.connectPubSubAsync(ByteArrayCodec.INSTANCE, node);
        }

        @Override
        public CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectSentinel(RedisURI node, RedisURI sentinel) {
            return this.client.connectPubSubAsync(ByteArrayCodec.INSTANCE, sentinel);
        }

    }

}
