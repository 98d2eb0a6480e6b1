package io.github.redlock.core;

import java.time.Duration;
import java.util.List;

import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quorum is only real if the N URIs reach N different masters. The hazard: one server listed twice (as
 * {@code 127.0.0.1} and {@code localhost}) beside a second one makes a "quorum" of 2 out of 3 that one server
 * alone can grant.
 */
class RedlockIndependentMastersIntegrationTests {

    @Test
    void oneServerListedTwiceVotesOnceSoItCannotGrantALockAlone() {
        try (RedisNodes redis = RedisNodes.start(2)) {
            String alias = "redis://localhost:" + redis.node(0).port();
            try (Redlock redlock = TestSupport.patientBuilder().nodes(List.of(redis.node(0).uri(), alias, redis.node(1).uri()))
                    .restartQuarantine(RestartQuarantine.NEVER).build()) {
                NodeStatus aliased = redlock.nodeStatuses().get("localhost:" + redis.node(0).port());
                assertThat(aliased.state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(aliased.reason()).contains("the same server as " + redis.node(0).hostAndPort());
                assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).as("two real servers").hasValueSatisfying(RedlockLease::release);
                redis.node(1).kill();
                assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).as("one real server is no quorum").isEmpty();
            }
        }
    }

    /**
     * A replica listed as a node does not vote (docs/safety.md): it would grant what its master granted, or what its
     * master never saw. Five nodes of which the last is a replica of the fourth: the four masters take locks, and the
     * replica never counts toward a quorum, nor as a reader of the others' restart records.
     */
    @Test
    void aReplicaListedAsANodeDoesNotVote() throws Exception {
        try (RedisNodes redis = RedisNodes.start(5)) {
            ServerCommands.call(redis.node(4), "REPLICAOF", "127.0.0.1", String.valueOf(redis.node(3).port()));
            try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
                TestSupport.awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeStatuses().get(redis.node(4).hostAndPort()).state()
                        == NodeStatus.State.QUARANTINED);
                NodeStatus replica = redlock.nodeStatuses().get(redis.node(4).hostAndPort());
                assertThat(replica.reason()).contains("a replica, not a master");
                assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).as("four masters").hasValueSatisfying(RedlockLease::release);
                redis.node(0).kill();
                redis.node(1).kill();
                assertThat(redlock.tryAcquire("k", Duration.ofSeconds(5))).as("two masters and a replica are no quorum").isEmpty();
            }
        }
    }

}
