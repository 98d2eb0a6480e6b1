package io.github.redlock.test;

import java.io.IOException;

import java.util.ArrayList;
import java.util.List;

/**
 * A set of independent {@code redis-server} processes (Redlock's N masters) on free loopback ports.
 *
 * <pre>{@code
 * try (RedisNodes redis = RedisNodes.start(5)) {
 *     Redlock redlock = Redlock.builder().nodes(redis.uris()).build();
 *     redis.node(0).pause();   // inject faults while clients work
 * }
 * }</pre>
 */
public final class RedisNodes implements AutoCloseable {

    private final List<RedisNode> nodes;

    private RedisNodes(List<RedisNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts {@code count} nodes at once and waits until every one answers {@code PING}.
     * @param count how many nodes, at least 1
     * @return the running nodes
     * @throws IllegalArgumentException when {@code count} is below 1
     * @throws IllegalStateException when a node does not start (nodes already started are stopped)
     */
    public static RedisNodes start(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        List<RedisNode> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisNode.launchUnready());
            }
            for (RedisNode node : started) {
                node.awaitReady();
            }
            return new RedisNodes(started);
        }
        catch (RuntimeException ex) {
            started.forEach(RedisNode::close);
            throw ex;
        }
    }

    /**
     * Starts {@code count} nodes that serve TLS with the server certificate of {@code certificates}, as
     * {@link RedisNode#startTls(TlsCertificates)} does, one after another.
     * @param count how many nodes, at least 1
     * @param certificates the certificates to serve
     * @return the running nodes; {@link #tlsUris()} gives their {@code rediss://} URIs
     * @throws IllegalArgumentException when {@code count} is below 1
     * @throws IllegalStateException when a node does not start, e.g. a server built without TLS (nodes already
     * started are stopped)
     */
    public static RedisNodes startTls(int count, TlsCertificates certificates) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        List<RedisNode> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisNode.startTls(certificates));
            }
            return new RedisNodes(started);
        }
        catch (RuntimeException ex) {
            started.forEach(RedisNode::close);
            throw ex;
        }
    }

    /**
     * Returns the TLS URIs of nodes started by {@link #startTls(int, TlsCertificates)}, in start order, e.g.
     * {@code rediss://127.0.0.1:41235}.
     * @return an unmodifiable list
     * @throws IllegalStateException when the nodes serve no TLS
     */
    public List<String> tlsUris() {
        return this.nodes.stream().map(RedisNode::tlsUri).toList();
    }

    /**
     * Returns how many nodes there are.
     * @return the node count
     */
    public int size() {
        return this.nodes.size();
    }

    /**
     * Returns one node, to inject faults into it.
     * @param index from 0 to {@code size() - 1}
     * @return the node
     */
    public RedisNode node(int index) {
        return this.nodes.get(index);
    }

    /**
     * Returns every node, in start order.
     * @return an unmodifiable list
     */
    public List<RedisNode> nodes() {
        return this.nodes;
    }

    /**
     * Returns the nodes' URIs, in start order, e.g. {@code redis://127.0.0.1:41234}.
     * @return an unmodifiable list
     */
    public List<String> uris() {
        return this.nodes.stream().map(RedisNode::uri).toList();
    }

    /**
     * Returns whether a Redis server answers {@code PING} at every one of these loopback URIs, e.g. to join
     * nodes another process started.
     * @param uris {@code redis://127.0.0.1:port} URIs, as {@link #uris()} gives them
     * @return {@code true} if every node answered within 500 ms; {@code false} for an empty list
     */
    public static boolean allAnswer(List<String> uris) {
        if (uris.isEmpty()) {
            return false;
        }
        for (String uri : uris) {
            try {
                if (!Resp.command(java.net.URI.create(uri).getPort(), 500, "PING").equals("+PONG")) {
                    return false;
                }
            }
            catch (IOException | IllegalArgumentException ex) {
                return false;
            }
        }
        return true;
    }

    /**
     * Undoes every fault and empties every node: paused nodes are resumed, cut-off ones healed, killed ones
     * restarted (on their ports), and all keys deleted. Lets one set of nodes serve many tests.
     */
    public void reset() {
        for (RedisNode node : this.nodes) {
            if (!node.isRunning()) {
                node.restart();
            }
            else if (node.isPaused()) {
                node.resume();
            }
            node.heal();
            node.flushAll();
        }
    }

    /**
     * Stops every node (SIGKILL) and deletes their working directories.
     */
    @Override
    public void close() {
        this.nodes.forEach(RedisNode::close);
    }

    @Override
    public String toString() {
        return "RedisNodes" + this.nodes;
    }

}
