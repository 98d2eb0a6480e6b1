package io.github.redlock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Connections opened by an application's own client through a {@link NodeConnector}.
 */
class RedlockConnectorIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private final RedisClient client = RedisClient.create();

    @AfterEach
    void shutdown() {
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Test
    void locksThroughTheApplicationsConnections() {
        this.client.setOptions(NodeConnector.clientOptions(Duration.ofMillis(50)).build());
        AtomicInteger connects = new AtomicInteger();
        NodeConnector connector = (uri) -> {
            connects.incrementAndGet();
            return this.client.connectAsync(ByteArrayCodec.INSTANCE, uri);
        };
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).connector(connector).build()) {
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(connects).hasValue(3);
            assertThat(redlock.tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void refusesConnectionsWhoseClientWouldReplayCommandsAfterADisconnect() {
        this.client.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS).build());
        NodeConnector connector = (uri) -> this.client.connectAsync(ByteArrayCodec.INSTANCE, uri);
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).connector(connector).build()) {
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO))
                    .satisfies((ex) -> assertThat(ex.getNodeFailures().values())
                            .allMatch((reason) -> reason.contains("must reject commands while disconnected")));
        }
    }

    @Test
    void namesWhyAnUnreachableNodeCannotBeConnected() {
        redis.node(0).kill();
        redis.node(1).kill();
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO))
                    .satisfies((ex) -> {
                        assertThat(ex.getNodeFailures().get(redis.node(0).hostAndPort())).startsWith("rejected: cannot connect");
                        assertThat(ex.getNodeFailures().get(redis.node(1).hostAndPort())).startsWith("rejected: cannot connect");
                    });
        }
    }

}
