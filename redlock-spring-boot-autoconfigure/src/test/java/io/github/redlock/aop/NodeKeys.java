package io.github.redlock.aop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.redlock.test.Poll;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;

/**
 * Reads lock keys straight from the nodes (not through the lock under test), and waits for conditions by
 * polling within a bound. Keys are written one byte per character (ISO-8859-1), so that a lock's parts, which the
 * byte 0xFF separates from its key, are named with {@code \u00FF}.
 */
final class NodeKeys implements AutoCloseable {

    private final RedisClient client = RedisClient.create();

    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

    NodeKeys(List<String> uris) {
        for (String uri : uris) {
            RedisURI redisUri = RedisURI.create(uri);
            redisUri.setTimeout(Duration.ofSeconds(2));
            this.connections.add(this.client.connect(new StringCodec(StandardCharsets.ISO_8859_1), redisUri));
        }
    }

    /**
     * How many nodes hold the Redis key (the lock's key with its prefix) now. Every node must answer: one that does not
     * fails the read rather than count as not holding, so that "no node holds it" is never the silence of a node.
     * @throws IllegalStateException naming the node that did not answer
     */
    int holding(String redisKey) {
        int holding = 0;
        for (StatefulRedisConnection<String, String> connection : this.connections) {
            try {
                if (connection.sync().exists(redisKey) > 0) {
                    holding++;
                }
            }
            catch (RuntimeException ex) {
                throw new IllegalStateException("a node did not answer whether it holds " + redisKey, ex);
            }
        }
        return holding;
    }

    /** Waits until every node answers that it does not hold the key, for at most {@code bound}; fails naming the key otherwise. */
    void awaitGone(String redisKey, Duration bound) {
        await(() -> {
            try {
                return holding(redisKey) == 0;
            }
            catch (IllegalStateException ex) {
                return false; // a node that does not answer is no evidence that the key is gone: ask again
            }
        }, bound, () -> redisKey + " is not gone from every node after " + bound + ": " + describe(redisKey));
    }

    private String describe(String redisKey) {
        try {
            return "still on " + holding(redisKey) + " node(s)";
        }
        catch (IllegalStateException ex) {
            return ex.getMessage();
        }
    }

    /** Polls until the condition holds, for at most {@code bound}; fails with the message otherwise. */
    static void await(BooleanSupplier condition, Duration bound, Supplier<String> failure) {
        Poll.until(bound, condition, failure);
    }

    @Override
    public void close() {
        this.connections.forEach(StatefulRedisConnection::close);
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

}
