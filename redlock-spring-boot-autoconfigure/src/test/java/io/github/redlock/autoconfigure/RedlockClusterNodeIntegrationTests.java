package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis Cluster in {@code redlock.nodes}, written in one comma-separated value beside two standalone masters: the
 * starter keeps its seed list whole, the lock connects to each of its masters, the health shows the node under its
 * name with the masters that answer for it, and after a failover inside the cluster it shows the node quarantined.
 */
class RedlockClusterNodeIntegrationTests {

    @Test
    void theHealthShowsAClusterNodeItsMastersAndItsFailover() {
        try (RedisNodes nodes = RedisNodes.start(2); RedisCluster cluster = RedisCluster.start(3, 1)) {
            String name = "cluster@" + String.join(",", cluster.nodes().stream().map(RedisNode::hostAndPort).toList());
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
                    .withPropertyValues("redlock.nodes=" + nodes.node(0).uri() + "," + nodes.node(1).uri() + "," + cluster.uri(),
                            "redlock.node-timeout=2s", "redlock.max-ttl=5s")
                    .run((context) -> {
                        Redlock redlock = context.getBean(Redlock.class);
                        RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
                        Health up = health.health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails()).containsEntry("voting", 3);
                        assertThat(nodeStates(up)).containsEntry(name, "UP");
                        assertThat(servers(up).get(name)).hasSize(3).allSatisfy((master) -> assertThat(master).matches("127\\.0\\.0\\.1:\\d+ slots [0-9,-]+"));
                        assertThat(redlock.nodeStatuses().get(name).servers()).isEqualTo(servers(up).get(name));

                        nodes.node(0).cutOff(); // the cluster's vote is needed for a quorum now
                        try {
                            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(5), Duration.ZERO);
                            assertThat(lease.release()).isTrue();
                        }
                        finally {
                            nodes.node(0).heal();
                        }

                        RedisNode former = cluster.masterOf("redlock:k");
                        RedisNode promoted = cluster.failover(former);
                        redlock.tryAcquire("k", Duration.ofSeconds(5)).ifPresent(RedlockLease::release); // answered MOVED by the former
                        Poll.until(Duration.ofSeconds(20), () -> nodeStates(health.health(true)).get(name).startsWith("QUARANTINED: "),
                                () -> "the cluster node was not quarantined after the failover: " + nodeStates(health.health(true)));
                        Health quarantined = health.health(true);
                        assertThat(nodeStates(quarantined).get(name)).contains("promoted from a replica by a failover");
                        assertThat(servers(quarantined).get(name)).anySatisfy((master) -> assertThat(master).startsWith(promoted.hostAndPort() + " "));
                        // Two standalone masters still make a quorum of three.
                        assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying((again) -> assertThat(again.release()).isTrue());
                    });
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> nodeStates(Health health) {
        return (Map<String, String>) health.getDetails().get("nodes");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> servers(Health health) {
        return (Map<String, List<String>>) health.getDetails().get("servers");
    }

}
