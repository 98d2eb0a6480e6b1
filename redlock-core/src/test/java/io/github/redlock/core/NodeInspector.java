package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Reads and writes keys on each node directly, to check what the lock left there. Connects per call, so
 * it works across restarts and never shares state with the client under test.
 */
final class NodeInspector implements AutoCloseable {

    private final RedisClient client = RedisClient.create();

    private final List<String> uris;

    NodeInspector(List<String> uris) {
        this.uris = new ArrayList<>(uris);
    }

    String get(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().get(key);
        }
    }

    long pttl(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().pttl(key);
        }
    }

    void set(int node, String key, String value, Duration ttl) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().set(key, value, SetArgs.Builder.px(ttl.toMillis()));
        }
    }

    /** The members of a sorted set on a node (e.g. the reader tokens of a read-write lock). */
    List<String> members(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().zrange(key, 0, -1);
        }
    }

    /** Adds a member to a sorted set on a node with a score of now + ttl by the node's clock, as a reader would. */
    void addReader(int node, String key, String token, Duration ttl) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            long nowMillis = connection.sync().time().stream().map(Long::parseLong).reduce((seconds, micros) -> seconds * 1000 + micros / 1000).orElseThrow();
            connection.sync().zadd(key, nowMillis + ttl.toMillis(), token);
            connection.sync().pexpire(key, ttl.toMillis());
        }
    }

    /** Whether the key exists on each node, in node order. */
    List<Boolean> exists(String key) {
        List<Boolean> exists = new ArrayList<>();
        for (int i = 0; i < this.uris.size(); i++) {
            try (StatefulRedisConnection<String, String> connection = connect(i)) {
                exists.add(connection.sync().exists(key) == 1);
            }
        }
        return exists;
    }

    /** Values of the key on every node, in node order (null where absent). */
    List<String> values(String key) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < this.uris.size(); i++) {
            values.add(get(i, key));
        }
        return values;
    }

    /**
     * Waits until the key has these values on the nodes, in node order. A release returns once a quorum
     * answered, so the other nodes may lag behind by a round trip when read from another connection.
     */
    void awaitValues(String key, String... expected) {
        List<String> wanted = java.util.Arrays.asList(expected);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> values(key).equals(wanted));
    }

    /**
     * Waits until every node holds the key with this value: an acquisition returns at a quorum, and the
     * last nodes may apply their SET a moment later.
     */
    void awaitOnAll(String key, String value) {
        String[] values = new String[this.uris.size()];
        java.util.Arrays.fill(values, value);
        awaitValues(key, values);
    }

    /** Waits until no node holds the key. */
    void awaitAbsent(String key) {
        awaitValues(key, new String[this.uris.size()]);
    }

    private StatefulRedisConnection<String, String> connect(int node) {
        RedisURI uri = RedisURI.create(this.uris.get(node));
        uri.setTimeout(Duration.ofSeconds(5));
        return this.client.connect(uri);
    }

    @Override
    public void close() {
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

}
