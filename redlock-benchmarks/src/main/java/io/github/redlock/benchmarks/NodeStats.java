package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;

/**
 * The measuring side of the nodes: one Lettuce connection per node, apart from the lock's, that resets their
 * statistics ({@code CONFIG RESETSTAT}) and samples them ({@code INFO all}). It speaks RESP2, so that the size of an
 * {@code INFO} reply on the wire is known and taken out of the bytes a node counts ({@link NodeSample#since}).
 * <p>
 * Between two samples its only command is the earlier sample's {@code INFO}, which {@link NodeSample#since} takes
 * out of the counts; the CPU figures include it (about a hundred microseconds of a node's CPU per measurement).
 */
final class NodeStats implements AutoCloseable {

    private final RedisClient client = RedisClient.create();

    private final List<RedisCommands<String, String>> nodes = new ArrayList<>();

    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

    /**
     * Connects to every node.
     * @param uris the nodes' {@code redis://} URIs
     */
    NodeStats(List<String> uris) {
        this.client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        for (String uri : uris) {
            StatefulRedisConnection<String, String> connection = this.client.connect(StringCodec.UTF8, RedisURI.create(uri));
            this.connections.add(connection);
            this.nodes.add(connection.sync());
        }
    }

    /** Resets the command statistics, byte counts and other counters of every node ({@code CONFIG RESETSTAT}). */
    void reset() {
        this.nodes.forEach(RedisCommands::configResetstat);
    }

    /**
     * Samples every node, one after the other.
     * @return one sample per node, in node order
     */
    List<NodeSample> sample() {
        return this.nodes.stream().map((node) -> NodeSample.parse(node.info("all"))).toList();
    }

    /**
     * Sends {@code ECHO marker} to one node, so that a {@link CommandSources} watching it knows where to stop.
     * @param node the node's index
     * @param marker the text to echo
     */
    void echo(int node, String marker) {
        this.nodes.get(node).echo(marker);
    }

    @Override
    public void close() {
        this.connections.forEach(StatefulRedisConnection::close);
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

}
