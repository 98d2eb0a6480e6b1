package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.RedisNodes;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees while nodes are quarantined after a (re)start: the health is DOWN while fewer than
 * a quorum of nodes may vote, with each quarantined node and why, the {@code redlock.nodes.quarantined}
 * gauge counts them, and both recover by themselves when the quarantine ends. Fresh nodes with
 * {@code restart-quarantine=always} and a short {@code max-ttl} make the quarantine happen on demand.
 */
class RedlockQuarantineHealthIntegrationTests {

    @Test
    void nodesThatAnswerPingButThatTheLockCouldNotCheckDoNotCountAsVoting() throws Exception {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            // Two nodes without INFO: they answer PING, but the lock cannot tell whether they restarted, so it
            // never lets them vote (it fails closed), nor counts them as readers of the third one's restart records, which
            // therefore does not vote either; no lock can be taken.
            nodes.node(1).restart("--rename-command", "INFO", "");
            nodes.node(2).restart("--rename-command", "INFO", "");
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
                    .withPropertyValues("redlock.nodes=" + String.join(",", nodes.uris()))
                    .run((context) -> {
                        assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(1))).isEmpty();
                        Health health = context.getBean(RedlockHealthIndicator.class).health(true);
                        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(health.getDetails()).containsEntry("reachable", 3).containsEntry("voting", 0);
                        @SuppressWarnings("unchecked")
                        Map<String, String> states = (Map<String, String>) health.getDetails().get("nodes");
                        assertThat(states.get(nodes.node(1).hostAndPort())).startsWith("UP, not voting: ").contains("INFO");
                        assertThat(states.get(nodes.node(0).hostAndPort())).startsWith("UP, not voting: ")
                                .contains("could be read from only 0 other node(s)");
                    });
        }
    }

    @Test
    void healthIsDownUntilTheQuarantineOfAQuorumEnds() throws Exception {
        try (RedisNodes fresh = RedisNodes.start(3)) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, RedlockAutoConfiguration.class,
                            RedlockMetricsAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
                    .withBean(SimpleMeterRegistry.class)
                    .withPropertyValues("redlock.nodes=" + String.join(",", fresh.uris()), "redlock.max-ttl=5s",
                            "redlock.restart-quarantine=always")
                    .run((context) -> {
                        assertThat(context.getBean(RedlockProperties.class).getRestartQuarantine()).isEqualTo(RestartQuarantine.ALWAYS);
                        RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        Health quarantined = health.health(true);
                        assertThat(quarantined.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(quarantined.getDetails()).containsEntry("voting", 0).containsEntry("reachable", 3);
                        @SuppressWarnings("unchecked")
                        Map<String, String> nodes = (Map<String, String>) quarantined.getDetails().get("nodes");
                        assertThat(nodes.values()).allSatisfy((state) -> assertThat(state).startsWith("QUARANTINED: ")
                                .contains("restart-quarantine ALWAYS").contains("votes again in"));
                        assertThat(meters.get("redlock.nodes.quarantined").gauge().value()).isEqualTo(3.0);
                        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                        // The nodes started one after another, so their quarantines end a little apart: the health
                        // is UP once a quorum's ended, the gauge 0 once the last one's has.
                        while ((health.health(true).getStatus() != Status.UP
                                || meters.get("redlock.nodes.quarantined").gauge().value() != 0) && System.nanoTime() < deadline) {
                            Thread.sleep(100);
                        }
                        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                        assertThat(meters.get("redlock.nodes.quarantined").gauge().value()).isZero();
                        assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(1))).isPresent();
                    });
        }
    }

}
