package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Redis Cluster as one of three nodes (two standalone masters beside it), on real processes: three masters that
 * share the hash slots. Locks spread over the cluster's masters; every kind of lock works, its companion keys placed
 * in its key's slot; fencing tokens come from a counter per lock; waiters are woken by releases published through
 * the cluster.
 */
class RedlockClusterIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(2);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aClusterNodeVotesBesideStandaloneMastersAndSpreadsLocksOverItsMasters() {
        try (Redlock redlock = redlock(); Redlock other = redlock()) {
            String name = clusterNodeName();
            assertThat(redlock.nodeStatuses().get(name).state()).isEqualTo(NodeStatus.State.UP);
            Set<RedisNode> holders = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                String key = "spread-" + i;
                RedlockLease lease = redlock.acquire(key, Duration.ofSeconds(10), Duration.ZERO);
                RedisNode master = cluster.masterOf("redlock:" + key);
                try (NodeInspector inspector = new NodeInspector(List.of(master.uri()))) {
                    awaitTrue(Duration.ofSeconds(5), () -> lease.token().equals(inspector.get(0, "redlock:" + key)));
                }
                holders.add(master);
                redis.node(0).cutOff(); // the cluster's vote is needed for a quorum now
                try {
                    assertThat(other.tryAcquire(key, Duration.ofSeconds(10))).isEmpty();
                    assertThat(lease.release()).isTrue();
                    assertThat(other.tryAcquire(key, Duration.ofSeconds(10))).hasValueSatisfying((second) -> assertThat(second.release()).isTrue());
                }
                finally {
                    redis.node(0).heal();
                }
            }
            assertThat(holders).as("the locks landed on several of the cluster's masters").hasSizeGreaterThan(1);
        }
    }

    @Test
    void readWriteLocksPlaceTheirPartsInTheirKeysSlot() {
        try (Redlock redlock = redlock(); Redlock other = redlock()) {
            redis.node(0).cutOff();
            try {
                RedlockLease read = redlock.acquireRead("report", Duration.ofSeconds(10), Duration.ZERO);
                RedlockLease secondRead = other.acquireRead("report", Duration.ofSeconds(10), Duration.ZERO);
                assertThat(other.tryAcquireWrite("report", Duration.ofSeconds(10))).isEmpty();
                RedisNode master = cluster.masterOf("redlock:report");
                try (NodeInspector inspector = new NodeInspector(List.of(master.uri()))) {
                    assertThat(inspector.keys(0, "{redlock:report}*")).as("the parts, tagged into the slot of redlock:report")
                            .isNotEmpty();
                }
                assertThat(read.release()).isTrue();
                assertThat(secondRead.release()).isTrue();
                assertThat(other.tryAcquireWrite("report", Duration.ofSeconds(10))).hasValueSatisfying((write) -> {
                    assertThat(redlock.tryAcquireRead("report", Duration.ofSeconds(10))).isEmpty();
                    assertThat(write.release()).isTrue();
                });
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    @Test
    void aWaiterIsWokenByTheReleaseThroughTheCluster() throws Exception {
        // A retry delay of 4 s: the waiter's next attempt comes 2 s or more after a refusal, so a grant within 1 s of
        // the release is the release message's doing, not a retry's.
        try (Redlock redlock = redlock(); Redlock other = TestSupport.patientBuilder().nodes(redis.node(0).uri(), redis.node(1).uri(),
                cluster.uri()).retryDelay(Duration.ofSeconds(4)).build(); NodeInspector standalone = new NodeInspector(redis.uris())) {
            redis.node(0).cutOff();
            try {
                RedlockLease held = redlock.acquire("queue", Duration.ofSeconds(30), Duration.ZERO);
                CompletableFuture<RedlockLease> waiter = other.acquireAsync("queue", Duration.ofSeconds(30), Duration.ofSeconds(25));
                awaitTrue(Duration.ofSeconds(5), () -> !standalone.channels(1).isEmpty()); // refused once, and waiting for a release
                long released = System.nanoTime();
                assertThat(held.release()).isTrue();
                RedlockLease next = waiter.get(20, TimeUnit.SECONDS);
                assertThat(TestSupport.millisSince(released)).as("ms from the release to the grant, retry delay 4 s").isLessThan(1_000);
                assertThat(next.release()).isTrue();
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    @Test
    void aNameWithACloseBraceButNoHashTagIsRefusedWithWhy() {
        try (Redlock redlock = redlock()) {
            assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> redlock.tryAcquire("a}b", Duration.ofSeconds(1)))
                    .withMessageContaining("'redlock:a}b' holds '}' but no hash tag");
            // With a hash tag of its own, a name with braces is placed as it is.
            Optional<RedlockLease> tagged = redlock.tryAcquireWrite("{order}:7}", Duration.ofSeconds(5));
            assertThat(tagged).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
        }
    }

    @Test
    void aMultiKeyLockInOneSlotIsGranted() {
        try (Redlock redlock = redlock(); Redlock other = redlock()) {
            RedlockLease both = redlock.acquire(List.of("{cart:9}:items", "{cart:9}:total"), Duration.ofSeconds(10), Duration.ZERO);
            redis.node(0).cutOff();
            try {
                assertThat(other.tryAcquire("{cart:9}:total", Duration.ofSeconds(10))).isEmpty();
                assertThat(both.release()).isTrue();
                assertThat(other.tryAcquire("{cart:9}:total", Duration.ofSeconds(10))).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    @Test
    void aMultiKeyLockAcrossSlotsIsGrantedOnlyWhenEverySlotGroupGrantsAndPartialGrantsAreReleased() {
        List<String> keys = List.of("basket-1", "basket-2", "basket-3", "basket-4", "basket-5", "basket-6");
        assertThat(keys.stream().map((key) -> cluster.masterOf("redlock:" + key)).distinct().count())
                .as("the keys are served by several masters").isGreaterThan(1);
        try (Redlock redlock = redlock(); Redlock other = redlock(); Redlock fenced = fenced()) {
            redis.node(0).cutOff(); // the cluster's vote is needed for a quorum now
            try {
                RedlockLease all = redlock.acquire(keys, Duration.ofSeconds(10), Duration.ZERO);
                assertThat(other.tryAcquire("basket-4", Duration.ofSeconds(10))).isEmpty();
                assertThat(all.extend(Duration.ofSeconds(20))).isTrue();
                assertThat(all.release()).isTrue();
                // One key held by another client: the groups of the other keys granted, and are released at once.
                RedlockLease one = other.acquire("basket-4", Duration.ofSeconds(10), Duration.ZERO);
                assertThat(redlock.tryAcquire(keys, Duration.ofSeconds(10))).isEmpty();
                for (String key : keys) {
                    if (!key.equals("basket-4")) {
                        try (NodeInspector master = new NodeInspector(List.of(cluster.masterOf("redlock:" + key).uri()))) {
                            awaitTrue(Duration.ofSeconds(5), () -> master.get(0, "redlock:" + key) == null);
                        }
                    }
                }
                assertThat(one.release()).isTrue();
                long previous = 0;
                for (int i = 0; i < 10; i++) {
                    try (RedlockLease lease = fenced.acquire(keys, Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                        assertThat(lease.fencingToken()).isGreaterThan(previous);
                        previous = lease.fencingToken();
                    }
                }
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    /**
     * The least-privilege line of docs/production.md on every server, the cluster's too: every kind of lock as that user, the
     * companion keys under {@code ~{redlock:*} and the cluster's view under {@code +cluster|nodes}, and no server's
     * {@code ACL LOG} shows a refused command, key or channel.
     */
    @Test
    void everyKindOfLockRunsAsTheLeastPrivilegedUserOfTheReadme() {
        List<RedisNode> servers = new ArrayList<>(cluster.nodes());
        servers.add(redis.node(0));
        servers.add(redis.node(1));
        for (RedisNode server : servers) {
            List<String> arguments = new ArrayList<>(ServerCommands.aclLine());
            arguments.replaceAll((argument) -> argument.startsWith(">") ? ">least-s3cret" : argument);
            assertThat(ServerCommands.call(server, arguments.toArray(String[]::new))).isEqualTo("OK");
            ServerCommands.call(server, "ACL", "LOG", "RESET");
        }
        try {
            List<String> uris = List.of("redis://redlock:least-s3cret@" + redis.node(0).hostAndPort(),
                    "redis://redlock:least-s3cret@" + redis.node(1).hostAndPort(),
                    cluster.uri().replace("redis-cluster://", "redis-cluster://redlock:least-s3cret@"));
            try (Redlock limited = TestSupport.patientBuilder().nodes(uris).fencing(true).build()) {
                assertThat(limited.nodeStatuses().values()).allSatisfy((status) -> assertThat(status.state()).isEqualTo(NodeStatus.State.UP));
                limited.acquire("acl", Duration.ofSeconds(5), Duration.ZERO).release();
                limited.acquireWrite("acl", Duration.ofSeconds(5), Duration.ZERO).release();
                limited.acquireRead("acl", Duration.ofSeconds(5), Duration.ZERO).release();
                limited.acquire(List.of("acl-1", "acl-2", "acl-3", "acl-4"), Duration.ofSeconds(5), Duration.ZERO).release();
                RedlockLease held = limited.acquire("acl", Duration.ofSeconds(5), Duration.ZERO);
                CompletableFuture<RedlockLease> waiter = limited.acquireAsync("acl", Duration.ofSeconds(5), Duration.ofSeconds(10));
                held.release();
                waiter.get(10, TimeUnit.SECONDS).release();
            }
            for (RedisNode server : servers) {
                assertThat(ServerCommands.aclLog(server)).as("ACL LOG of " + server).doesNotContain("reason, command")
                        .doesNotContain("reason, key").doesNotContain("reason, channel");
            }
        }
        catch (Exception ex) {
            throw new AssertionError(ex);
        }
        finally {
            servers.forEach((server) -> ServerCommands.call(server, "ACL", "SETUSER", "redlock", "off")); // DELUSER answers a number
        }
    }

    @Test
    void theSameClusterListedTwiceOrBesideOneOfItsServersIsRefused() {
        String seed = cluster.masters().get(0).hostAndPort();
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://" + seed, redis.node(0).uri(), cluster.uri()).build())
                .withMessageContaining("nodes lists " + seed + " twice");
    }

    @Test
    void fencedLeasesOfEveryKindGetStrictlyIncreasingTokensFromALockCounterInTheKeysSlot() {
        try (Redlock fenced = fenced()) {
            long previous = 0;
            long lastOfJob = 0;
            for (int i = 0; i < 60; i++) {
                RedlockLease lease = switch (i % 3) {
                    case 0 -> fenced.acquire("job", Duration.ofSeconds(5), Duration.ZERO);
                    case 1 -> fenced.acquireWrite("job", Duration.ofSeconds(5), Duration.ZERO);
                    default -> fenced.acquire(List.of("{job}:a", "{job}:b"), Duration.ofSeconds(5), Duration.ZERO);
                };
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
                if (i % 3 != 2) {
                    lastOfJob = previous; // the multi-key lock's keys have a tag of their own: another slot, another counter
                }
                assertThat(lease.release()).isTrue();
            }
            RedisNode master = cluster.masterOf("redlock:job");
            try (NodeInspector inspector = new NodeInspector(List.of(master.uri()))) {
                String counter = "{redlock:job}\u00FFfence";
                assertThat(Long.parseLong(inspector.get(0, counter))).isGreaterThanOrEqualTo(lastOfJob);
                assertThat(inspector.pttl(0, counter)).as("kept 10 minutes from its last raise").isBetween(1L, 600_000L);
                assertThat(inspector.get(0, "{redlock:}\u00FFfencing-counter")).as("no node-wide counter").isNull();
            }
        }
    }

    @Test
    void contendedFencedLeasesGetTokensThatIncreaseInGrantOrder() throws Exception {
        try (Redlock fenced = fenced()) {
            assertThat(TestSupport.tokensInGrantOrder(fenced, "hot", 6, 10)).hasSize(60).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
        }
    }

    /**
     * Two leases whose quorums share only the cluster node, which lost the lock's counter in between (a failover or a
     * restart empties it, as the counter's expiry does): the second still gets the larger token, from the clock.
     */
    @Test
    void aLockCounterLostOnTheClusterBetweenTwoLeasesDoesNotMakeTokensFall() {
        try (Redlock fenced = fenced()) {
            long before;
            redis.node(1).cutOff();
            try {
                before = fenced.acquire("lost", Duration.ofSeconds(5), Duration.ZERO).fencingToken();
            }
            finally {
                redis.node(1).heal();
            }
            try (NodeInspector inspector = new NodeInspector(List.of(cluster.masterOf("redlock:lost").uri()))) {
                awaitTrue(Duration.ofSeconds(5), () -> inspector.get(0, "redlock:lost") != null);
                inspector.delete(0, "redlock:lost");
                inspector.delete(0, "{redlock:lost}\u00FFfence");
            }
            try (NodeInspector standalone = new NodeInspector(redis.uris())) {
                standalone.delete(0, "redlock:lost");
            }
            redis.node(0).cutOff();
            try (RedlockLease after = fenced.acquire("lost", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                assertThat(after.fencingToken()).isGreaterThan(before);
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    private static String clusterNodeName() {
        return "cluster@" + String.join(",", cluster.nodes().stream().map(RedisNode::hostAndPort).toList());
    }

    private static Redlock fenced() {
        return voting(TestSupport.patientBuilder().nodes(redis.node(0).uri(), redis.node(1).uri(), cluster.uri()).fencing(true).build());
    }

    private static Redlock redlock() {
        return voting(TestSupport.patientBuilder().nodes(redis.node(0).uri(), redis.node(1).uri(), cluster.uri()).build());
    }

    /**
     * Returns the lock once every node votes: its first check may still run when the build returns on a busy machine (it
     * waits for the checks a bounded time), and the tests acquire at once, without waiting.
     */
    private static Redlock voting(Redlock redlock) {
        try {
            TestSupport.awaitTrue(Duration.ofSeconds(30), () -> redlock.nodeStatuses().values().stream()
                    .allMatch((status) -> status.state() == NodeStatus.State.UP));
            return redlock;
        }
        catch (RuntimeException | Error ex) {
            redlock.close();
            throw ex;
        }
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

}
