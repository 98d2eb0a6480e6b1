package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.RedisSentinelGroup;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel group in {@code redlock.nodes}, beside two standalone masters: the starter connects to the master the
 * sentinels name (through a factory with a {@code RedisSentinelConfiguration}), the health shows the node under its
 * name, and after {@code SENTINEL FAILOVER} it shows the promoted replica quarantined, as the sentinels announce it,
 * while the former master still answers as a master.
 */
class RedlockSentinelNodeIntegrationTests {

    @Test
    void theHealthShowsASentinelNodeAndItsFailover() {
        try (RedisNodes nodes = RedisNodes.start(2); RedisSentinelGroup group = RedisSentinelGroup.start()) {
            String name = group.masterName() + "@" + String.join(",", group.sentinels().stream().map(RedisNode::hostAndPort).toList());
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
                    .withPropertyValues("redlock.nodes=" + nodes.node(0).uri() + "," + nodes.node(1).uri() + "," + group.uri(),
                            "redlock.node-timeout=2s", "redlock.max-ttl=5s")
                    .run((context) -> {
                        Redlock redlock = context.getBean(Redlock.class);
                        RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
                        Health up = health.health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails()).containsEntry("voting", 3);
                        assertThat(nodeStates(up)).containsEntry(name, "UP");
                        RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(5), Duration.ZERO);
                        // acquire returns with a quorum: the group's SET may still be on its way.
                        Poll.until(Duration.ofSeconds(5), () -> lease.token().equals(get(group.master(), "redlock:k")),
                                () -> "the group's master does not hold the lease's key");
                        assertThat(lease.release()).isTrue();

                        RedisNode former = group.master();
                        group.failover();
                        Poll.until(Duration.ofSeconds(20), () -> nodeStates(health.health(true)).get(name).startsWith("QUARANTINED: "),
                                () -> "the Sentinel node was not quarantined after the failover: " + nodeStates(health.health(true)));
                        assertThat(role(former)).as("the former master is not a replica yet").isEqualTo("master");
                        assertThat(nodeStates(health.health(true)).get(name)).contains("promoted from a replica by a failover");
                        // Two standalone masters still make a quorum of three.
                        assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying((again) -> assertThat(again.release()).isTrue());
                    });
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> nodeStates(Health health) {
        return (Map<String, String>) health.getDetails().get("nodes");
    }

    private static String get(RedisNode node, String key) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().get(key);
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private static String role(RedisNode node) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return String.valueOf(connection.sync().role().get(0));
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

}
