package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timer;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * The Lettuce side shared by all nodes: one set of event loops and one timer (created here, or given by
 * the application), the connector that opens each node's connection (a {@link RedisClient} of its own
 * with {@link NodeConnector#clientOptions(Duration) the options Redlock relies on}, unless the
 * application gives one), and the closing of all of it. The node timeout is enforced per quorum call on
 * the shared timer, not by Lettuce: Lettuce silently drops a timed-out command that it had not written
 * yet, which could drop the clean-up that follows a SET already on the wire.
 */
final class NodeConnections {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

    private final ClientResources resources;

    /** The resources this class created (and closes), or null when the application gave them. */
    private final @Nullable RedlockClientResources ownResources;

    private final @Nullable RedisClient ownClient;

    private final NodeConnector connector;

    private NodeConnections(ClientResources resources, @Nullable RedlockClientResources ownResources, @Nullable RedisClient ownClient,
            NodeConnector connector) {
        this.resources = resources;
        this.ownResources = ownResources;
        this.ownClient = ownClient;
        this.connector = connector;
    }

    static NodeConnections create(@Nullable ClientResources shared, @Nullable NodeConnector connector, Duration nodeTimeout) {
        RedlockClientResources created = null;
        ClientResources resources = shared;
        if (resources == null) {
            created = RedlockClientResources.create();
            resources = created.resources();
        }
        RedisClient client = null;
        if (connector == null) {
            client = RedisClient.create(resources);
            client.setOptions(NodeConnector.clientOptions(nodeTimeout).build());
            connector = new OwnConnector(client);
        }
        return new NodeConnections(resources, created, client, connector);
    }

    NodeConnector connector() {
        return this.connector;
    }

    /** The timer that fires node timeouts. */
    Timer timer() {
        return this.resources.timer();
    }

    /** Lettuce's computation executors: connect retries and follow-up commands sent off I/O threads. */
    EventExecutorGroup scheduler() {
        return this.resources.eventExecutorGroup();
    }

    /**
     * Starts connecting every node at once and waits, a bounded time, for each first attempt, so that
     * reachable nodes are usable when {@code build()} returns. Unreachable ones keep retrying.
     */
    void connectAll(RedisNodeClient[] nodes, Duration nodeTimeout) {
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

    /** Closes the node connections, and the client and resources this class created. Never throws. */
    void close(RedisNodeClient[] nodes) {
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

    /**
     * The validated node URIs.
     */
    record Settings(List<RedisURI> uris) {

        /**
         * Parses and checks the node list: not empty, every entry a Redis URI, no node twice.
         * @throws IllegalArgumentException naming the entry at fault and how to write it
         */
        static Settings parse(@Nullable List<String> nodes) {
            if (nodes == null || nodes.isEmpty()) {
                throw new RedlockArgumentException("nodes", "nodes must list at least one Redis master, e.g. "
                        + "nodes(\"redis://10.0.0.1:6379\", \"redis://10.0.0.2:6379\", \"redis://10.0.0.3:6379\")");
            }
            List<RedisURI> uris = new ArrayList<>(nodes.size());
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < nodes.size(); i++) {
                RedisURI uri = parse(i, nodes.get(i));
                String address = RedisNodeClient.nameOf(uri);
                if (!seen.add(address)) {
                    throw new RedlockArgumentException("nodes", "nodes lists " + address + " twice; Redlock needs N independent "
                            + "masters, each listed once");
                }
                uris.add(uri);
            }
            return new Settings(List.copyOf(uris));
        }

        private static RedisURI parse(int index, @Nullable String node) {
            String where = "nodes[" + index + "]";
            if (node == null || node.isBlank()) {
                throw new RedlockArgumentException("nodes", where + " must be a Redis URI such as redis://10.0.0.1:6379, was "
                        + (node == null ? "null" : "blank"));
            }
            String trimmed = node.trim();
            if (!trimmed.startsWith("redis://") && !trimmed.startsWith("rediss://") && !trimmed.startsWith("redis-socket://")) {
                throw new RedlockArgumentException("nodes", where + " '" + node + "' is not a Redis URI; write redis://host:port "
                        + "(rediss:// for TLS, redis://:password@host:port/db with a password)");
            }
            try {
                RedisURI uri = RedisURI.create(trimmed);
                if (uri.getSocket() == null && (uri.getHost() == null || uri.getHost().isBlank())) {
                    throw new IllegalArgumentException("no host");
                }
                return uri;
            }
            catch (RedlockArgumentException ex) {
                throw ex;
            }
            catch (RuntimeException ex) {
                throw new RedlockArgumentException("nodes", where + " '" + node + "' is not a valid Redis URI (" + ex.getMessage()
                        + "); write redis://host:port", ex);
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

    }

}
