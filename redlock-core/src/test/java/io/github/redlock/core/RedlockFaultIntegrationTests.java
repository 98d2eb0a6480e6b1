package io.github.redlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.node.NodeLimits;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static io.github.redlock.core.TestSupport.millisSince;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Nodes that crash, freeze and come back while a client locks.
 */
class RedlockFaultIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void tearDown() {
        this.scheduler.shutdownNow();
    }

    @Test
    void twoOfFiveNodesKilledStillAcquires() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            redis.node(0).kill();
            redis.node(3).kill();
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(this.nodes.get().get(1, "redlock:k")).isEqualTo(lease.token());
            assertThat(this.nodes.get().get(2, "redlock:k")).isEqualTo(lease.token());
            assertThat(this.nodes.get().get(4, "redlock:k")).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void threeOfFiveNodesKilledFailsFast() {
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(1)).build()) {
            redis.node(0).kill();
            redis.node(1).kill();
            redis.node(2).kill();
            long start = System.nanoTime();
            assertThat(redlock.tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
            assertThat(millisSince(start)).isLessThan(900);
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO));
            assertThat(millisSince(start)).isLessThan(1800);
        }
    }

    @Test
    void threeOfFiveNodesKilledGiveAnErrorThatExplainsTheMissingQuorum() {
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(1)).build()) {
            redis.node(0).kill();
            redis.node(1).kill();
            redis.node(2).kill();
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO))
                    .satisfies((ex) -> {
                        assertThat(ex.getKey()).isEqualTo("k");
                        assertThat(ex.getQuorum()).isEqualTo(3);
                        assertThat(ex.getAgreedNodes()).isEqualTo(2);
                        assertThat(ex.getNodeFailures()).containsOnlyKeys(redis.node(0).hostAndPort(),
                                redis.node(1).hostAndPort(), redis.node(2).hostAndPort());
                        assertThat(ex.getMessage()).contains("'k'", "2 node(s) agreed", "quorum is 3",
                                redis.node(0).hostAndPort(), redis.node(1).hostAndPort(), redis.node(2).hostAndPort());
                    });
        }
    }

    @Test
    void threeOfFiveNodesKilledLeaveNoKeyOnTheLiveNodes() {
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(1)).build()) {
            redis.node(0).kill();
            redis.node(1).kill();
            redis.node(2).kill();
            assertThat(redlock.tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO));
            // The two live nodes said yes, and were cleaned up.
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().get(3, "redlock:k") == null && this.nodes.get().get(4, "redlock:k") == null);
        }
    }

    @Test
    void commandsAreRejectedAtOnceWhileNodesAreDown() {
        Duration nodeTimeout = Duration.ofSeconds(2);
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(nodeTimeout).build()) {
            killAllNodesUntilTheClientRejectsCommands(redlock);
            for (int i = 0; i < 10; i++) {
                long start = System.nanoTime();
                assertThat(redlock.tryAcquire("lost-" + i, Duration.ofSeconds(60))).isEmpty();
                assertThat(millisSince(start)).isLessThan(nodeTimeout.toMillis() / 2);
            }
        }
    }

    @Test
    void commandsRejectedWhileNodesAreDownAreNeverReplayedAfterTheyReturn() {
        Duration nodeTimeout = Duration.ofSeconds(2);
        // Quarantine off: the restarted nodes must vote at once for the check that nothing was replayed.
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(nodeTimeout)
                .restartQuarantine(RestartQuarantine.NEVER).build()) {
            killAllNodesUntilTheClientRejectsCommands(redlock);
            for (int i = 0; i < 10; i++) {
                assertThat(redlock.tryAcquire("lost-" + i, Duration.ofSeconds(60))).isEmpty();
            }
            redis.nodes().nodes().forEach(RedisNode::restart);
            // After reconnecting, the client locks again; none of the rejected SETs reached a node.
            awaitTrue(Duration.ofSeconds(20), () -> redlock.tryAcquire("back", Duration.ofSeconds(10)).isPresent());
            for (int i = 0; i < 10; i++) {
                assertThat(this.nodes.get().values("redlock:lost-" + i)).containsOnlyNulls();
            }
            assertThat(this.nodes.get().values("redlock:probe")).containsOnlyNulls();
        }
    }

    private void killAllNodesUntilTheClientRejectsCommands(Redlock redlock) {
        redis.nodes().nodes().forEach(RedisNode::kill);
        // Once the client has seen the disconnects, every command is rejected, not queued.
        awaitTrue(Duration.ofSeconds(5), () -> {
            try {
                redlock.acquire("probe", Duration.ofSeconds(30), Duration.ZERO);
                return false;
            }
            catch (RedlockAcquisitionException ex) {
                return ex.getNodeFailures().values().stream().filter((r) -> r.startsWith("rejected")).count() == 5;
            }
        });
    }

    @Test
    void pausedNodesCostOneNodeTimeoutInParallelNotOneEach() {
        Duration nodeTimeout = Duration.ofMillis(400);
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(nodeTimeout).build()) {
            redis.node(0).pause();
            redis.node(1).pause();
            // A quorum answers at once: the frozen nodes cost nothing.
            long start = System.nanoTime();
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(millisSince(start)).isLessThan(nodeTimeout.toMillis());
            assertThat(lease.release()).isTrue();
            // Without a quorum the attempt waits for the timeouts, in parallel: one timeout, not three.
            redis.node(2).pause();
            start = System.nanoTime();
            assertThat(redlock.tryAcquire("k2", Duration.ofSeconds(10))).isEmpty();
            long elapsed = millisSince(start);
            assertThat(elapsed).isGreaterThanOrEqualTo(nodeTimeout.toMillis() - 20).isLessThan(3 * nodeTimeout.toMillis() - 100);
        }
    }

    @Test
    void frozenNodeKeepsNoKeyAfterItResumesEvenWhenItHadRestartedEmpty() {
        // Quarantine off: this test is about the script cache, and needs the restarted node to vote at once.
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofMillis(100))
                .restartQuarantine(RestartQuarantine.NEVER).build()) {
            // A restart empties the node's script cache: the clean-up must not depend on it.
            redis.node(0).restart();
            // Wait until the client uses node 0 again, without running a script there (leases just expire).
            awaitTrue(Duration.ofSeconds(20), () -> {
                Optional<RedlockLease> lease = redlock.tryAcquire("warm-" + System.nanoTime(), Duration.ofMillis(500));
                return lease.isPresent() && lease.get().token().equals(this.nodes.get().get(0, "redlock:" + lease.get().key()));
            });
            redis.node(0).pause();
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(30), Duration.ZERO);
            assertThat(lease.release()).isTrue();
            redis.node(3).pause();
            redis.node(4).pause();
            assertThat(redlock.tryAcquire("failed", Duration.ofSeconds(30))).isEmpty();
            redis.node(0).resume();
            redis.node(3).resume();
            redis.node(4).resume();
            // The late SETs run when the nodes wake up, and the clean-ups sent after them on the same connections too.
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:k").stream().allMatch((v) -> v == null)
                    && this.nodes.get().values("redlock:failed").stream().allMatch((v) -> v == null));
        }
    }

    @Test
    void frozenNodeStopsGettingSetsBeforeItsQueueIsFull() {
        java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observer(countingOutcomes(outcomes)).build()) {
            lockRepeatedlyWhileNode4IsFrozen(redlock, outcomes);
            assertThat(outcomes).containsKey("frozen set rejected");
            assertThat(outcomes.keySet()).noneMatch((key) -> key.endsWith(" error")); // Lettuce never had to refuse
            resumeNode4UntilItsBacklogRan(redlock); // so that no late SET outlives this test
        }
    }

    @Test
    void frozenNodeStillGetsEveryCleanUp() {
        java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observer(countingOutcomes(outcomes)).build()) {
            lockRepeatedlyWhileNode4IsFrozen(redlock, outcomes);
            assertThat(outcomes).doesNotContainKey("frozen release rejected"); // every clean-up was sent
            resumeNode4UntilItsBacklogRan(redlock);
            // Each late SET was followed by its release, so no key survives.
            assertThat(this.nodes.get().get(4, "redlock:k")).isNull();
        }
    }

    /**
     * Resumes node 4 and waits until a new SET through the same connection reaches it: its whole backlog ran
     * before it then (one connection is processed in order).
     */
    private void resumeNode4UntilItsBacklogRan(Redlock redlock) {
        redis.node(4).resume();
        awaitTrue(Duration.ofSeconds(30), () -> {
            String probeKey = "probe-" + System.nanoTime();
            java.util.Optional<RedlockLease> probe = redlock.tryAcquire(probeKey, Duration.ofSeconds(5));
            return probe.isPresent() && probe.get().token().equals(this.nodes.get().get(4, "redlock:" + probeKey));
        });
    }

    /** An observer that counts each command outcome, prefixed with "frozen " for node 4. */
    private static RedlockObserver countingOutcomes(java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> outcomes) {
        String frozen = redis.node(4).hostAndPort();
        return new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                String key = (node.equals(frozen) ? "frozen " : "") + command + " " + outcome;
                outcomes.computeIfAbsent(key, (k) -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
            }

        };
    }

    /** Pauses node 4, then locks and releases until the client stops sending it SETs, and as often again. */
    private static void lockRepeatedlyWhileNode4IsFrozen(Redlock redlock,
            java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> outcomes) {
        redis.node(4).pause();
        int rounds = 0;
        while (!outcomes.containsKey("frozen set rejected") && rounds < 3 * NodeLimits.SET_LIMIT) {
            assertThat(redlock.acquire("k", Duration.ofSeconds(30), Duration.ZERO).release()).isTrue();
            rounds++;
        }
        // Enough more locks to overflow Lettuce's queue if releases still went to the node without their SETs.
        for (int i = 0; i < 2 * NodeLimits.SET_LIMIT; i++) {
            redlock.acquire("k", Duration.ofSeconds(30), Duration.ZERO).release();
        }
    }

    @Test
    void releasesReachAFrozenNodeEvenAfterExtensionsWouldHaveFilledItsQueue() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            java.util.List<RedlockLease> leases = new java.util.ArrayList<>();
            for (int i = 0; i < 50; i++) {
                leases.add(redlock.acquire("extended:" + i, Duration.ofSeconds(60), Duration.ZERO));
            }
            for (RedlockLease lease : leases) {
                this.nodes.get().awaitValues("redlock:" + lease.key(), lease.token(), lease.token(), lease.token(), lease.token(),
                        lease.token());
            }
            redis.node(4).pause();
            try {
                // More extensions than Lettuce's queue for node 4 holds; each is decided by the four live nodes.
                for (int round = 0; round < NodeLimits.REQUEST_QUEUE_SIZE * 5 / 4 / leases.size() + 1; round++) {
                    for (RedlockLease lease : leases) {
                        assertThat(lease.extend(Duration.ofSeconds(60))).isTrue();
                    }
                }
                for (RedlockLease lease : leases) {
                    assertThat(lease.release()).isTrue();
                }
            }
            finally {
                redis.node(4).resume();
            }
            // The node works through its backlog; every release was queued behind it, so no key survives.
            awaitTrue(Duration.ofSeconds(30), () -> this.nodes.get().keys(4, "redlock:extended:*").isEmpty());
        }
    }

    @Test
    void aReleaseThatCouldNotBeSentToACutOffNodeIsSentWhenItReconnects() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            RedlockLease lease = redlock.acquire("cut-off", Duration.ofSeconds(60), Duration.ZERO);
            this.nodes.get().awaitOnAll("redlock:cut-off", lease.token());
            redis.node(4).cutOff(); // the server keeps its keys; the client cannot reach it
            try {
                awaitTrue(Duration.ofSeconds(5), () -> !redlock.nodeConnections().get(redis.node(4).hostAndPort()));
                assertThat(redlock.nodeStatuses().get(redis.node(4).hostAndPort()).owedReleases()).isZero();
                assertThat(lease.release()).isTrue(); // by the four other nodes
                // Owed to the cut-off node (the redlock.releases.owed gauge), and to no other.
                awaitTrue(Duration.ofSeconds(5), () -> redlock.nodeStatuses().get(redis.node(4).hostAndPort()).owedReleases() == 1);
                assertThat(redlock.nodeStatuses().values().stream().mapToInt(NodeStatus::owedReleases).sum()).isOne();
            }
            finally {
                redis.node(4).heal();
            }
            awaitTrue(Duration.ofSeconds(20), () -> this.nodes.get().get(4, "redlock:cut-off") == null);
            awaitTrue(Duration.ofSeconds(5), () -> redlock.nodeStatuses().get(redis.node(4).hostAndPort()).owedReleases() == 0);
        }
    }

    @Test
    void acquisitionBudgetRejectsAnAttemptThatTookTooMuchOfTheTtl() {
        Duration ttl = Duration.ofSeconds(6);
        // Well past the budget (a third of the ttl, 2 s), also when the pauses themselves take a second on a loaded machine.
        Duration slowness = Duration.ofMillis(3500);
        try (Redlock budgeted = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(5))
                .acquisitionBudget(1.0 / 3).build();
                Redlock unbudgeted = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(5)).build()) {
            freezeMajorityFor(slowness);
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> budgeted.acquire("k", ttl, Duration.ZERO))
                    .withMessageContaining("acquisition budget");
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:k").stream().allMatch((v) -> v == null));

            freezeMajorityFor(slowness);
            long start = System.nanoTime();
            RedlockLease lease = unbudgeted.acquire("k", ttl, Duration.ZERO);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            Duration left = lease.remainingValidity();
            // Measured, not assumed: on a loaded machine the three pauses (a kill -STOP each) take a while, and the first
            // node resumes that much sooner after the attempt starts.
            assertThat(took).as("the frozen majority slowed the attempt").isGreaterThan(Duration.ofSeconds(1));
            // Validity counts from the attempt's start: what the attempt took is gone from it, never counted from the grant.
            assertThat(left).isLessThan(ttl.minus(took).plusMillis(100));
            lease.release();
        }
    }

    private void freezeMajorityFor(Duration duration) {
        for (int i = 0; i < 3; i++) {
            RedisNode node = redis.node(i);
            node.pause();
            this.scheduler.schedule(node::resume, duration.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

}
