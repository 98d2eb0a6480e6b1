package io.github.redlock.core;

import java.time.Duration;
import java.util.Optional;

import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "delayed restart" rule on five real nodes. The hazard: a first client holds a lock on exactly nodes
 * 0, 1 and 2 (nodes 3 and 4 still held another client's key, about to expire); node 2 then restarts empty on
 * the same port; once the other client's keys have expired, a second client finds nodes 2, 3 and 4 free and
 * takes the lock too, while the first lease is still valid. With the quarantine, node 2 does not vote until
 * every lock it may have held has expired.
 */
class RedlockRestartQuarantineTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(6);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.nodes = new NodeInspector(redis.uris());
    }

    @AfterEach
    void tearDown() {
        this.nodes.close();
    }

    @Test
    void aClientStartedAfterTheRestartCannotTakeALockHeldThroughTheRestartedNode() {
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", new String[0]);
            try (Redlock second = redlock(RestartQuarantine.AUTO)) {
                assertThat(second.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
                // Once the first lease expired the lock is free again, node 2 voting or not; node 2 votes again
                // once it has been up for maxTtl (plus drift and a second).
                awaitTrue(Duration.ofSeconds(20), () -> second.tryAcquire("k", MAX_TTL).map(RedlockLease::release).orElse(false));
                awaitTrue(Duration.ofSeconds(20), () -> second.nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.UP);
            }
        }
    }

    @Test
    void theLongLivedClientItselfDoesNotLetTheRestartedNodeVote() {
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", new String[0]);
            awaitTrue(Duration.ofSeconds(5), () -> first.nodeStatuses().get(redis.node(2).hostAndPort()).state() != NodeStatus.State.DOWN);
            NodeStatus status = first.nodeStatuses().get(redis.node(2).hostAndPort());
            assertThat(status.state()).isEqualTo(NodeStatus.State.QUARANTINED);
            assertThat(status.quarantinedFor()).isPositive().isLessThanOrEqualTo(MAX_TTL.plusSeconds(2));
            assertThat(status.reason()).contains("run_id changed");
            assertThat(first.tryAcquire("k", MAX_TTL)).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void withoutTheQuarantineTheSecondClientTakesTheLockWhileTheFirstStillHoldsIt() {
        try (Redlock first = redlock(RestartQuarantine.NEVER)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", new String[0]);
            try (Redlock second = redlock(RestartQuarantine.NEVER)) {
                Optional<RedlockLease> secondGrant = second.tryAcquire("k", MAX_TTL);
                assertThat(secondGrant).as("the hazard: a second grant").isPresent();
                assertThat(held.isValid()).as("while the first lease is valid").isTrue();
                secondGrant.get().release();
            }
        }
    }

    @Test
    void aNodeThatLogsEveryWriteBeforeAnsweringVotesRightAfterItsRestart() {
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", new String[] { "--appendonly", "yes", "--appendfsync", "always" });
            try (Redlock second = redlock(RestartQuarantine.AUTO)) {
                assertThat(second.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.UP);
            }
        }
        finally {
            redis.node(2).restart(); // back to the harness's options for the next tests
        }
    }

    @Test
    void freshNodesThatNoClientRecordedVoteAtOnce() {
        try (RedisNodes fresh = RedisNodes.start(3);
                Redlock redlock = TestSupport.patientBuilder().nodes(fresh.uris()).maxTtl(MAX_TTL).build()) {
            assertThat(redlock.nodeStatuses().values()).extracting(NodeStatus::state).containsOnly(NodeStatus.State.UP);
            assertThat(redlock.tryAcquire("k", MAX_TTL)).hasValueSatisfying(RedlockLease::release);
        }
    }

    @Test
    void alwaysMakesFreshNodesWaitUntilTheyHaveBeenUpForMaxTtl() {
        try (RedisNodes fresh = RedisNodes.start(3);
                Redlock redlock = TestSupport.patientBuilder().nodes(fresh.uris()).maxTtl(Duration.ofSeconds(5))
                        .restartQuarantine(RestartQuarantine.ALWAYS).build()) {
            assertThat(redlock.nodeStatuses().values()).extracting(NodeStatus::state).containsOnly(NodeStatus.State.QUARANTINED);
            assertThat(redlock.tryAcquire("k", Duration.ofSeconds(2))).isEmpty();
            awaitTrue(Duration.ofSeconds(20), () -> redlock.tryAcquire("k", Duration.ofSeconds(2)).map(RedlockLease::release).orElse(false));
        }
    }

    private static Redlock redlock(RestartQuarantine quarantine) {
        return TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(MAX_TTL).restartQuarantine(quarantine).build();
    }

    /**
     * Makes {@code first} hold {@code key} on exactly nodes 0 to 2 (3 and 4 hold another client's key, which
     * expires soon), restarts node 2 empty with the given options, and waits until the other client's keys are
     * gone.
     */
    private RedlockLease holdOnNodesZeroToTwoThenRestartNodeTwo(Redlock first, String key, String[] options) {
        for (int i = 3; i < 5; i++) {
            this.nodes.set(i, "redlock:" + key, "another-client", Duration.ofMillis(1200));
        }
        RedlockLease held = first.acquire(key, MAX_TTL, Duration.ZERO);
        this.nodes.awaitValues("redlock:" + key, held.token(), held.token(), held.token(), "another-client", "another-client");
        redis.node(2).restart(options);
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get(3, "redlock:" + key) == null && this.nodes.get(4, "redlock:" + key) == null);
        return held;
    }

}
