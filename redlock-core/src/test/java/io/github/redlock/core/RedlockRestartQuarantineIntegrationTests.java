package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
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
class RedlockRestartQuarantineIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(6);

    /** The max-ttl of a long-lived client of a fleet; its leases outlive the fleet tests. */
    private static final Duration LONG_MAX_TTL = Duration.ofSeconds(20);

    /** The max-ttl of a short-lived client of a fleet. */
    private static final Duration SHORT_MAX_TTL = Duration.ofSeconds(1);

    private static final String[] DURABLE = { "--appendonly", "yes", "--appendfsync", "always" };

    /** The password of the user of the nodes that only the second client of a partition test reaches. */
    private static final String PARTITION_PASSWORD = "only-the-second-client";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private NodeInspector nodes;

    /** When node 2 last came back ({@link System#nanoTime()}). */
    private long restartedNanos;

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
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.EMPTY);
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
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.EMPTY);
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
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.EMPTY);
            try (Redlock second = redlock(RestartQuarantine.NEVER)) {
                Optional<RedlockLease> secondGrant = second.tryAcquire("k", MAX_TTL);
                assertThat(secondGrant).as("the hazard: a second grant").isPresent();
                assertThat(held.isValid()).as("while the first lease is valid").isTrue();
                secondGrant.get().release();
            }
        }
    }

    /**
     * Records read from nodes that do not hold them. The first client checked every node while all five ran, so its
     * records of node 0 are on 1 to 4; then nodes 3 and 4 restart empty (losing them) and the first client can no longer
     * reach them (they come back with a user of their own, for the second client only: an asymmetric partition), so it
     * holds {@code k} on 0, 1 and 2. Node 0 restarts empty and nodes 1 and 2 are cut off. The second client reaches 0, 3
     * and 4, and reads node 0's records from 3 and 4, which lost them. The rule of two answers ({@code floor(N/2)}) let
     * node 0 vote at once, and the second client took {@code k} on 0, 3 and 4 while the first lease was valid. A check
     * now needs three trusted readers ({@code N - floor(N/2)}), which share a node with every set of two that a record was
     * confirmed on; with two, nothing is decided, and no node votes for the second client.
     */
    @Test
    void aClientThatReachesOnlyNodesWithoutTheHoldersRecordsDoesNotLetTheRestartedNodeVote() {
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnZeroToTwoWhileThreeAndFourRestartBehindAPartitionThenRestartZero(first);
            try (Redlock second = reachingZeroThreeAndFour(RestartQuarantine.AUTO)) {
                assertThat(second.tryAcquire("k", MAX_TTL)).as("a second grant").isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
                NodeStatus status = second.nodeStatuses().get(redis.node(0).hostAndPort());
                assertThat(status.state()).isNotEqualTo(NodeStatus.State.UP);
                assertThat(status.reason()).contains("could be read from only 2 other node(s)").contains("of the 3 the check needs");
            }
        }
        finally {
            restoreNodesOneToFour();
        }
    }

    /** The control of the test above: without the quarantine the second client takes {@code k} on nodes 0, 3 and 4. */
    @Test
    void withoutTheQuarantineAClientThatReachesOnlyNodesZeroThreeAndFourTakesTheHeldLock() {
        try (Redlock first = redlock(RestartQuarantine.NEVER)) {
            RedlockLease held = holdOnZeroToTwoWhileThreeAndFourRestartBehindAPartitionThenRestartZero(first);
            try (Redlock second = reachingZeroThreeAndFour(RestartQuarantine.NEVER)) {
                Optional<RedlockLease> secondGrant = second.tryAcquire("k", MAX_TTL);
                assertThat(secondGrant).as("the hazard: a second grant").isPresent();
                assertThat(held.isValid()).as("while the first lease is valid").isTrue();
            }
        }
        finally {
            restoreNodesOneToFour();
        }
    }

    /**
     * A durable node whose {@code appendfsync} is weakened at run time no longer proves that it keeps what it
     * acknowledged: its kept-data marker is deleted within a refresh period, so a restart afterwards is quarantined.
     */
    @Test
    void weakeningAppendfsyncAtRunTimeDropsTheKeptDataMarker() {
        String marker = "redlock:\u00FFkept-since";
        try {
            redis.node(2).restart(DURABLE);
            try (Redlock client = redlock(SHORT_MAX_TTL, RestartQuarantine.AUTO)) {
                awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get(2, marker) != null); // it votes, and is durable
                ServerCommands.call(redis.node(2), "CONFIG", "SET", "appendfsync", "everysec");
                // A refresh period is a quarter of the quarantine, about 0.5 s for a max-ttl of 1 s.
                awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get(2, marker) == null);
                assertThat(client.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.UP);
            }
        }
        finally {
            redis.node(2).restart();
        }
    }

    /**
     * A fleet: the first client (max-ttl 20 s) holds the lock through the restarted node; a second client with a
     * max-ttl of 1 s, built once the node has been up for longer than its own quarantine (1 s, drift and a
     * second), must not let it vote while the first lease may still depend on it.
     */
    @Test
    void aShortMaxTtlClientKeepsTheRestartedNodeQuarantinedForTheLongestMaxTtlRecorded() {
        try (Redlock first = redlock(LONG_MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", LONG_MAX_TTL, Restart.EMPTY);
            sleepUntilNodeTwoIsUpFor(Duration.ofMillis(3500)); // past the short client's own quarantine
            try (Redlock second = redlock(SHORT_MAX_TTL, RestartQuarantine.AUTO)) {
                NodeStatus status = second.nodeStatuses().get(redis.node(2).hostAndPort());
                assertThat(status.state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(status.quarantinedFor()).isGreaterThan(Duration.ofSeconds(10));
                assertThat(status.reason()).contains("max-ttl of 20 s").contains("this client's is 1 s");
                assertThat(second.tryAcquire("k", SHORT_MAX_TTL)).isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
            }
        }
    }

    /**
     * The short client's record refreshes (every half second) must not erase the long client's record of the
     * node's previous {@code run_id}: a long client built seconds later must still see the restart.
     */
    @Test
    void aShortMaxTtlClientsRefreshesDoNotEraseTheRestartThatALongerOneRecorded() {
        try (Redlock first = redlock(LONG_MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", LONG_MAX_TTL, Restart.EMPTY);
            try (Redlock second = redlock(SHORT_MAX_TTL, RestartQuarantine.AUTO)) {
                // Longer than twice the short client's quarantine and a refresh: what it prunes, it has pruned.
                sleep(Duration.ofSeconds(6));
                try (Redlock third = redlock(LONG_MAX_TTL, RestartQuarantine.AUTO)) {
                    assertThat(third.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                    assertThat(third.tryAcquire("k", LONG_MAX_TTL)).isEmpty();
                    assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
                }
            }
        }
    }

    /** The control of the two tests above: without the quarantine, the short client takes the held lock. */
    @Test
    void withoutTheQuarantineTheShortMaxTtlClientTakesTheLockWhileTheLongOneHoldsIt() {
        try (Redlock first = redlock(LONG_MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", LONG_MAX_TTL, Restart.EMPTY);
            try (Redlock second = redlock(SHORT_MAX_TTL, RestartQuarantine.NEVER)) {
                Optional<RedlockLease> secondGrant = second.tryAcquire("k", SHORT_MAX_TTL);
                assertThat(secondGrant).as("the hazard: a second grant").isPresent();
                assertThat(held.isValid()).as("while the first lease is valid").isTrue();
                secondGrant.get().release();
            }
        }
    }

    /**
     * A node that came back empty (a new directory, a container without its volume) under {@code appendonly yes}
     * and {@code appendfsync always}: the configuration of the new process proves nothing about the old data, so
     * it is quarantined for the client that held a lock through it and for a client built after the restart.
     */
    @Test
    void aNodeRestartedEmptyUnderADurableConfigurationIsQuarantined() {
        try (Redlock first = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.EMPTY_DURABLE);
            awaitTrue(Duration.ofSeconds(5), () -> first.nodeStatuses().get(redis.node(2).hostAndPort()).state() != NodeStatus.State.DOWN);
            assertThat(first.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
            assertThat(first.tryAcquire("k", MAX_TTL)).isEmpty();
            try (Redlock second = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
                assertThat(second.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
            }
            assertThat(held.isValid()).as("the first lease was still valid at the refused attempts").isTrue();
        }
        finally {
            redis.node(2).restart(); // back to the harness's options for the next tests
        }
    }

    /**
     * A node that logs every write before answering, from before the lock was taken, and came back with its files:
     * it kept every key it acknowledged, proven by the marker that clients wrote on it before the restart, so it
     * votes at once, for the holder and for a client built after the restart.
     */
    @Test
    void aNodeThatKeptItsDataThroughTheRestartVotesAtOnce() {
        redis.node(2).restart(DURABLE);
        try (Redlock first = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.KEEPING_DATA);
            assertThat(this.nodes.get(2, "redlock:k")).as("the node kept the lock's key").isEqualTo(held.token());
            awaitTrue(Duration.ofSeconds(5), () -> first.nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.UP);
            try (Redlock second = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
                assertThat(second.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.UP);
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
                assertThat(second.tryAcquire("other", MAX_TTL)).hasValueSatisfying(RedlockLease::release);
            }
            assertThat(held.isValid()).isTrue();
        }
        finally {
            redis.node(2).restart();
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

    /**
     * A durable node that came back empty is quarantined; if it crashes again during that quarantine and comes back
     * with its files, it has kept only what it held since the first restart, not the keys of the leases that
     * depended on it before: it must not vote at once. (The marker is written only once a node votes.)
     */
    @Test
    void aDurableNodeThatKeptTheDataOfAnIncarnationStillInQuarantineIsQuarantinedAgain() {
        redis.node(2).restart(DURABLE);
        try (Redlock first = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
            RedlockLease held = holdOnNodesZeroToTwoThenRestartNodeTwo(first, "k", MAX_TTL, Restart.EMPTY_DURABLE);
            awaitTrue(Duration.ofSeconds(5), () -> first.nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.QUARANTINED);
            redis.node(2).restartKeepingData(DURABLE);
            awaitTrue(Duration.ofSeconds(5), () -> first.nodeStatuses().get(redis.node(2).hostAndPort()).state() != NodeStatus.State.DOWN);
            assertThat(first.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
            try (Redlock second = redlock(MAX_TTL, RestartQuarantine.AUTO)) {
                assertThat(second.nodeStatuses().get(redis.node(2).hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
            }
            assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
        }
        finally {
            redis.node(2).restart();
        }
    }

    private static Redlock redlock(RestartQuarantine quarantine) {
        return redlock(MAX_TTL, quarantine);
    }

    private static Redlock redlock(Duration maxTtl, RestartQuarantine quarantine) {
        return TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(maxTtl).restartQuarantine(quarantine).build();
    }

    /**
     * Makes {@code first} hold {@code key} for {@code ttl} on exactly nodes 0 to 2 (3 and 4 hold another client's
     * key, which expires soon), restarts node 2 as told, and waits until the other client's keys are gone.
     */
    private RedlockLease holdOnNodesZeroToTwoThenRestartNodeTwo(Redlock first, String key, Duration ttl, Restart restart) {
        for (int i = 3; i < 5; i++) {
            this.nodes.set(i, "redlock:" + key, "another-client", Duration.ofMillis(1200));
        }
        RedlockLease held = first.acquire(key, ttl, Duration.ZERO);
        this.nodes.awaitValues("redlock:" + key, held.token(), held.token(), held.token(), "another-client", "another-client");
        switch (restart) {
            case EMPTY -> redis.node(2).restart();
            case EMPTY_DURABLE -> redis.node(2).restart(DURABLE);
            case KEEPING_DATA -> redis.node(2).restartKeepingData(DURABLE);
        }
        this.restartedNanos = System.nanoTime();
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get(3, "redlock:" + key) == null && this.nodes.get(4, "redlock:" + key) == null);
        return held;
    }

    /**
     * Restarts nodes 3 and 4 empty, each with a user of its own for the second client and the default user (which
     * {@code first} connects as) off, so that {@code first} cannot reach them; makes {@code first} hold {@code k} on nodes 0
     * to 2; restarts node 0 empty, and cuts nodes 1 and 2 off.
     */
    private RedlockLease holdOnZeroToTwoWhileThreeAndFourRestartBehindAPartitionThenRestartZero(Redlock first) {
        for (int i = 3; i < 5; i++) {
            RedisNode node = redis.node(i);
            node.restart();
            ServerCommands.call(node, "ACL", "SETUSER", "second", "on", ">" + PARTITION_PASSWORD, "~*", "&*", "+@all");
            ServerCommands.call(node, "ACL", "SETUSER", "default", "off");
            // A connection the first client opened meanwhile stays as the default user: close it, as the second user.
            RedisClient client = RedisClient.create("redis://second:" + PARTITION_PASSWORD + "@" + node.hostAndPort());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().clientKill(KillArgs.Builder.typeNormal().skipme());
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        }
        RedlockLease held = first.acquire("k", MAX_TTL, Duration.ZERO);
        awaitTrue(Duration.ofSeconds(5), () -> held.token().equals(this.nodes.get(0, "redlock:k"))
                && held.token().equals(this.nodes.get(1, "redlock:k")) && held.token().equals(this.nodes.get(2, "redlock:k")));
        redis.node(0).restart();
        redis.node(1).cutOff();
        redis.node(2).cutOff();
        return held;
    }

    /** A client that reaches nodes 0, 3 and 4 only: 1 and 2 are cut off, and it knows the password of 3 and 4. */
    private static Redlock reachingZeroThreeAndFour(RestartQuarantine quarantine) {
        List<String> uris = new ArrayList<>(redis.uris());
        for (int i = 3; i < 5; i++) {
            uris.set(i, "redis://second:" + PARTITION_PASSWORD + "@" + redis.node(i).hostAndPort());
        }
        return TestSupport.patientBuilder().nodes(uris).maxTtl(MAX_TTL).restartQuarantine(quarantine).build();
    }

    /** Heals nodes 1 and 2, and restarts 3 and 4 as the harness runs them, for the tests that follow. */
    private static void restoreNodesOneToFour() {
        redis.node(1).heal();
        redis.node(2).heal();
        redis.node(3).restart();
        redis.node(4).restart();
    }

    private void sleepUntilNodeTwoIsUpFor(Duration uptime) {
        sleep(uptime.minusNanos(System.nanoTime() - this.restartedNanos));
    }

    private static void sleep(Duration duration) {
        if (duration.isNegative()) {
            return;
        }
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** How node 2 comes back. */
    private enum Restart {

        /** Empty, persisting nothing, as the harness runs nodes. */
        EMPTY,

        /** Empty, with {@code appendonly yes} and {@code appendfsync always}: a new disk under a durable configuration. */
        EMPTY_DURABLE,

        /** With the files it wrote under the durable configuration it already ran with. */
        KEEPING_DATA

    }

}
