package io.github.redlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * Opens the connection to one node, for integrations that manage their Lettuce clients themselves (the
 * Spring Boot starter opens it through each node's {@code LettuceConnectionFactory}). Without one, a
 * {@link Redlock} opens its connections with a Lettuce client of its own.
 *
 * <p>The client behind the connection must have the {@link #clientOptions(Duration) options Redlock
 * relies on}: in particular it must reject commands while disconnected, so that no command is replayed
 * after the caller gave up. A connection without them is refused (the node then counts as down).
 */
@FunctionalInterface
public interface NodeConnector {

    /**
     * The node timeout of a {@link Redlock} whose builder sets none, 50 ms: the one to pass to
     * {@link #clientOptions(Duration)} when the application configures none.
     */
    Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);

    /**
     * Opens a connection to the node. Called again, after a delay, while it fails.
     * @param node the node's URI, as parsed from the node list
     * @return a future of a connection with a {@code byte[]} codec (as Spring Data Redis uses)
     */
    CompletionStage<StatefulRedisConnection<byte[], byte[]>> connect(RedisURI node);

    /**
     * Opens a pub/sub connection to the node, over which waiters in this JVM learn of releases at once. By
     * default none: waiters then retry after their retry delay (or when the holder's key expires).
     * @param node the node's URI, as parsed from the node list
     * @return a future of a pub/sub connection with a {@code byte[]} codec, or a failed future with an
     * {@link UnsupportedOperationException} when this connector opens none
     */
    default CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub(RedisURI node) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this connector opens no pub/sub connections"));
    }

    /**
     * Opens a pub/sub connection to one sentinel of a Sentinel node ({@code redis-sentinel://…#name}), over which the
     * lock hears of a failover as the sentinels announce it ({@code +switch-master}) and reconnects to the new master
     * at once. By default none: a failover is then noticed when the former master drops the connection or refuses a
     * write as a replica, seconds later, while it may still grant locks that the new master does not know of.
     * @param node the Sentinel node's URI, as parsed from the node list
     * @param sentinel one of its sentinels, as in {@link RedisURI#getSentinels()}
     * @return a future of a pub/sub connection to that sentinel with a {@code byte[]} codec, or a failed future with an
     * {@link UnsupportedOperationException} when this connector opens none
     */
    default CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectSentinel(RedisURI node, RedisURI sentinel) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this connector opens no sentinel connections"));
    }

    /**
     * Returns client options with what Redlock relies on: auto-reconnect, commands rejected while
     * disconnected (never buffered and replayed), a bounded request queue, no per-command time-out (node
     * timeouts are enforced per quorum call, so that no command is dropped before it is written), a
     * connect timeout of at least a second, and no maintenance notifications (a command that only Redis Enterprise
     * knows, which Redis 6.2 logs as refused for a least-privileged user).
     * @param nodeTimeout the node timeout (the connect timeout is the larger of it and one second)
     * @return a builder to complete (e.g. with SSL options) and build
     */
    static ClientOptions.Builder clientOptions(Duration nodeTimeout) {
        Duration connectTimeout = (nodeTimeout.compareTo(Duration.ofSeconds(1)) > 0) ? nodeTimeout : Duration.ofSeconds(1);
        return ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(8_192) // the bound of commands waiting per connection, which the engine's limits derive from
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
                // Lettuce's CLIENT MAINT_NOTIFICATIONS in every handshake: unknown to open-source Redis and Valkey, and on
                // Redis 6.2 refused by the least-privilege ACL line before that, filling the ACL LOG that operators watch.
                .maintNotificationsConfig(MaintNotificationsConfig.disabled());
    }

}
