package io.github.redlock.connection;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

import io.github.redlock.core.NodeConnector;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

/**
 * The starter's connections: one Spring Data Redis {@link LettuceConnectionFactory} per node, all sharing one
 * set of Lettuce resources (given, and closed by their owner, not here), with client options that reject commands while disconnected and a command
 * timeout of the connect timeout (the node timeout, at least a second): Lettuce bounds a connection's handshake by it, and
 * a handshake bounded by a 50 ms node timeout fails on a loaded host though the node answers. The lock bounds each of its
 * calls by the node timeout itself, and the health indicator its pings. The factories are held here, not registered as {@code RedisConnectionFactory}
 * beans, so that an application's own {@code spring.data.redis} connection keeps working beside them.
 * Each factory is created when the lock first connects to its node; the lock talks to the node through the
 * factory's native asynchronous Lettuce client.
 */
public final class RedlockConnectionFactories implements DisposableBean {

    private final Duration nodeTimeout;

    private final ClientResources resources;

    private final @Nullable SslOptions sslOptions;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, LettuceConnectionFactory> factories = new LinkedHashMap<>();

    /**
     * Creates the holder; factories themselves are created as nodes are first connected.
     * @param nodeTimeout the node timeout; connections are opened within the larger of it and one second
     * @param resources the Lettuce resources every node's client shares, e.g. a
     * {@link io.github.redlock.core.RedlockClientResources}'s
     */
    public RedlockConnectionFactories(Duration nodeTimeout, ClientResources resources) {
        this(nodeTimeout, resources, null);
    }

    /**
     * Creates the holder, with the TLS options of the connections to {@code rediss://} nodes.
     * @param nodeTimeout the node timeout; connections are opened within the larger of it and one second
     * @param resources the Lettuce resources every node's client shares
     * @param sslOptions the TLS options (trust and key material, protocols, ciphers) of {@code rediss://} nodes, or
     * {@code null} for Lettuce's defaults (the JVM's trust store)
     */
    public RedlockConnectionFactories(Duration nodeTimeout, ClientResources resources, @Nullable SslOptions sslOptions) {
        this.nodeTimeout = nodeTimeout;
        this.resources = resources;
        this.sslOptions = sslOptions;
    }

    /**
     * Returns the Lettuce resources (event loops, timer) shared by every node's factory.
     * @return the shared resources
     */
    public ClientResources clientResources() {
        return this.resources;
    }

    /**
     * Returns the connector through which the lock opens each node's connection, and the pub/sub connection
     * over which its waiters hear of releases.
     * @return the connector
     */
    public NodeConnector connector() {
        return new NodeConnector() {

            @Override
            public CompletionStage<StatefulRedisConnection<byte[], byte[]>> connect(RedisURI uri) {
                return client(uri).connectAsync(ByteArrayCodec.INSTANCE, uri);
            }

            @Override
            public CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub(RedisURI uri) {
                return client(uri).connectPubSubAsync(ByteArrayCodec.INSTANCE, uri);
            }

            @Override
            public CompletionStage<StatefulRedisPubSubConnection<byte[], byte[]>> connectSentinel(RedisURI node, RedisURI sentinel) {
                return client(node).connectPubSubAsync(ByteArrayCodec.INSTANCE, sentinel);
            }

        };
    }

    private RedisClient client(RedisURI uri) {
        return (RedisClient) factory(uri).getRequiredNativeClient();
    }

    /**
     * Returns the factory of every node connected so far, by the node's name as the lock's statuses give it
     * ({@code host:port}, or {@code master-name@sentinel:port,…} for a Sentinel group), in node order.
     * @return an unmodifiable snapshot
     */
    public Map<String, LettuceConnectionFactory> factories() {
        this.lock.lock();
        try {
            return Collections.unmodifiableMap(new LinkedHashMap<>(this.factories));
        }
        finally {
            this.lock.unlock();
        }
    }

    private LettuceConnectionFactory factory(RedisURI uri) {
        String name = name(uri);
        this.lock.lock();
        try {
            LettuceConnectionFactory factory = this.factories.get(name);
            if (factory == null) {
                factory = create(uri);
                this.factories.put(name, factory);
            }
            return factory;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Returns the node timeout, which bounds each command the lock and the health indicator send.
     * @return the node timeout
     */
    public Duration nodeTimeout() {
        return this.nodeTimeout;
    }

    /** The bound of opening a connection, its handshake included: the node timeout, at least a second (as the connect timeout). */
    private static Duration connectTimeout(Duration nodeTimeout) {
        return (nodeTimeout.compareTo(Duration.ofSeconds(1)) > 0) ? nodeTimeout : Duration.ofSeconds(1);
    }

    private LettuceConnectionFactory create(RedisURI uri) {
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                .clientResources(this.resources)
                .clientOptions(clientOptions(uri))
                .commandTimeout(connectTimeout(this.nodeTimeout))
                .shutdownTimeout(Duration.ZERO);
        RedisCredentialsProvider credentials = uri.getCredentialsProvider();
        if (credentials != null && !(credentials instanceof StaticCredentialsProvider)) {
            // A provider of the application's (rotating passwords, IAM tokens): asked at every connection, as the lock's are.
            client.redisCredentialsProviderFactory(new RedisCredentialsProviderFactory() {

                @Override
                public RedisCredentialsProvider createCredentialsProvider(RedisConfiguration configuration) {
                    return credentials;
                }

            });
        }
        if (uri.isSsl()) {
            LettuceClientConfiguration.LettuceSslClientConfigurationBuilder ssl = client.useSsl();
            if (!uri.isVerifyPeer()) {
                ssl.disablePeerVerification();
            }
            if (uri.isStartTls()) {
                ssl.startTls();
            }
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration(uri), client.build());
        factory.afterPropertiesSet();
        factory.start(); // creates the client; connections are opened lazily
        return factory;
    }

    /** A node's name, as {@code Redlock.nodeStatuses()} gives it. */
    private static String name(RedisURI uri) {
        if (uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty()) {
            return uri.getSentinelMasterId() + "@" + uri.getSentinels().stream().map((sentinel) -> sentinel.getHost() + ":" + sentinel.getPort())
                    .collect(Collectors.joining(","));
        }
        return (uri.getSocket() != null) ? uri.getSocket() : uri.getHost() + ":" + uri.getPort();
    }

    /** What Redlock relies on, with the TLS options for a {@code rediss://} node. */
    private ClientOptions clientOptions(RedisURI uri) {
        ClientOptions.Builder options = NodeConnector.clientOptions(this.nodeTimeout);
        if (uri.isSsl() && this.sslOptions != null) {
            options.sslOptions(this.sslOptions);
        }
        return options.build();
    }

    private static RedisConfiguration configuration(RedisURI uri) {
        if (uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty()) {
            RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
            sentinel.master(uri.getSentinelMasterId());
            uri.getSentinels().forEach((one) -> sentinel.sentinel(one.getHost(), one.getPort()));
            sentinel.setDatabase(uri.getDatabase());
            applyCredentials(uri, sentinel);
            return sentinel;
        }
        if (uri.getSocket() != null) {
            RedisSocketConfiguration socket = new RedisSocketConfiguration(uri.getSocket());
            socket.setDatabase(uri.getDatabase());
            applyCredentials(uri, socket);
            return socket;
        }
        RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        standalone.setDatabase(uri.getDatabase());
        applyCredentials(uri, standalone);
        return standalone;
    }

    private static void applyCredentials(RedisURI uri, RedisConfiguration.WithPassword target) {
        if (uri.getCredentialsProvider() instanceof StaticCredentialsProvider provider) {
            RedisCredentials credentials = provider.resolveCredentialsNow();
            if (credentials != null && credentials.hasUsername()) {
                ((RedisConfiguration.WithAuthentication) target).setUsername(credentials.getUsername());
            }
            if (credentials != null && credentials.hasPassword()) {
                target.setPassword(RedisPassword.of(credentials.getPassword()));
            }
        }
    }

    /**
     * Destroys every factory; the shared resources are their owner's to close. Runs after the lock was closed.
     */
    @Override
    public void destroy() {
        for (LettuceConnectionFactory factory : factories().values()) {
            try {
                factory.destroy();
            }
            catch (RuntimeException ex) {
                // Keep closing the others.
            }
        }
    }

}
