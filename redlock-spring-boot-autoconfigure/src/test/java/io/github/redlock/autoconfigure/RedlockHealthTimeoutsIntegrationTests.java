package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two bounds of a health check: opening a node's connection may take the connect timeout (at least a second),
 * so that a node slow to answer the handshake on a loaded host is not reported down, while a PING on an open
 * connection is bounded by the node timeout, so that a frozen node costs 50 ms, not a second.
 */
class RedlockHealthTimeoutsIntegrationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
            .withPropertyValues("redlock.restart-quarantine=never");

    @Test
    void aNodeThatAnswersTheHandshakeLaterThanTheNodeTimeoutIsUp() {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            this.runner.withPropertyValues("redlock.nodes=" + String.join(",", nodes.uris())).run((context) -> {
                awaitAllVoting(context.getBean(Redlock.class));
                // The health's own connection to node 0 opens on its first check: the node answers its handshake
                // 300 ms late, as a node of a heavily loaded host may.
                nodes.node(0).pause();
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> nodes.node(0).resume());
                Health health = context.getBean(RedlockHealthIndicator.class).health(true);
                assertThat(states(health)).containsEntry(nodes.node(0).hostAndPort(), "UP");
                assertThat(health.getDetails()).containsEntry("reachable", 3);
            });
        }
    }

    @Test
    void aFrozenNodeCostsTheNodeTimeoutOnceItsConnectionIsOpen() {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            this.runner.withPropertyValues("redlock.nodes=" + String.join(",", nodes.uris())).run((context) -> {
                awaitAllVoting(context.getBean(Redlock.class));
                RedlockHealthIndicator indicator = context.getBean(RedlockHealthIndicator.class);
                assertThat(indicator.health(true).getDetails()).containsEntry("reachable", 3); // opens the connections
                nodes.node(1).pause();
                try {
                    long start = System.nanoTime();
                    Health health = indicator.health(true);
                    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertThat(states(health).get(nodes.node(1).hostAndPort())).startsWith("DOWN");
                    assertThat(elapsedMillis).as("a frozen node costs the node timeout, not the connect timeout").isLessThan(900);
                }
                finally {
                    nodes.node(1).resume();
                }
            });
        }
    }

    private static void awaitAllVoting(Redlock redlock) {
        Poll.until(Duration.ofSeconds(10), () -> redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP),
                () -> "the nodes do not all vote: " + redlock.nodeStatuses());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> states(Health health) {
        return (Map<String, String>) health.getDetails().get("nodes");
    }

}
