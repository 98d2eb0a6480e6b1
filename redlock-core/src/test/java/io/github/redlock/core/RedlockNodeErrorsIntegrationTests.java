package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisNodes;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node that cannot be used for a reason the operator can fix says that reason in {@link Redlock#nodeStatuses()},
 * instead of a bare "not connected": here a password the node refuses, and a missing one. The password itself is never
 * printed.
 */
class RedlockNodeErrorsIntegrationTests {

    @Test
    void aNodeThatRefusesTheCredentialsSaysSoWithoutPrintingThem() {
        try (RedisNodes nodes = RedisNodes.start(1)) {
            RedisClient client = RedisClient.create(nodes.node(0).uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().configSet("requirepass", "right-pass");
            }
            finally {
                client.shutdown();
            }
            String address = nodes.node(0).hostAndPort();
            try (Redlock redlock = TestSupport.patientBuilder().nodes("redis://:wrong-pass@" + address).build()) {
                NodeStatus status = redlock.nodeStatuses().get(address);
                System.out.println("wrong password: " + status);
                assertThat(status.state()).isEqualTo(NodeStatus.State.DOWN);
                assertThat(status.reason()).contains("WRONGPASS").doesNotContain("wrong-pass").doesNotContain("right-pass");
                assertThat(redlock.tryAcquire("k", Duration.ofSeconds(1))).isEmpty();
            }
            try (Redlock redlock = TestSupport.patientBuilder().nodes("redis://" + address).build()) {
                System.out.println("no password: " + redlock.nodeStatuses().get(address));
                assertThat(redlock.nodeStatuses().get(address).reason()).contains("NOAUTH");
            }
        }
    }

}
