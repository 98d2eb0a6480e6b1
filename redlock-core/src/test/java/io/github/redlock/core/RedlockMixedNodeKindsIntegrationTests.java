package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisSentinelGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One node of each kind, on real processes: a standalone master, a Sentinel group (master, replica, three sentinels)
 * and a Redis Cluster (three masters). Every node's vote is needed in turn (the other two are cut off one at a
 * time), so each kind of lock is shown to exclude a second client through each kind of node.
 */
class RedlockMixedNodeKindsIntegrationTests {

    private static RedisNode standalone;

    private static RedisSentinelGroup group;

    private static RedisCluster cluster;

    @BeforeAll
    static void startNodes() {
        standalone = RedisNode.start();
        group = RedisSentinelGroup.start();
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopNodes() {
        cluster.close();
        group.close();
        standalone.close();
    }

    @Test
    void everyKindOfLockExcludesASecondClientThroughEveryKindOfNode() throws Exception {
        try (Redlock redlock = redlock(false); Redlock other = redlock(false); Redlock fenced = redlock(true)) {
            assertThat(redlock.nodeStatuses().values()).allSatisfy((status) -> assertThat(status.state()).isEqualTo(NodeStatus.State.UP));
            long token = 0;
            for (RedisNode cut : List.of(group.master(), standalone, cluster.masterOf("redlock:mixed"))) {
                // With one server of one node cut off (a cluster: the master of the lock's slot), the other two decide.
                cut.cutOff();
                try {
                    RedlockLease exclusive = redlock.acquire("mixed", Duration.ofSeconds(10), Duration.ZERO);
                    assertThat(other.tryAcquire("mixed", Duration.ofSeconds(10))).isEmpty();
                    CompletableFuture<RedlockLease> waiter = other.acquireAsync("mixed", Duration.ofSeconds(10), Duration.ofSeconds(8));
                    // Refused once, and waiting: its record of waiting is on a server of a node that is not cut off.
                    RedisNode reachable = (cut == standalone) ? group.master() : standalone;
                    try (NodeInspector inspector = new NodeInspector(List.of(reachable.uri()))) {
                        awaitTrue(Duration.ofSeconds(5), () -> inspector.exists("redlock:mixed\u00FFwaiting").contains(true));
                    }
                    assertThat(exclusive.release()).isTrue();
                    waiter.get(8, TimeUnit.SECONDS).release(); // woken by the release, or its retry

                    RedlockLease read = redlock.acquireRead("mixed-rw", Duration.ofSeconds(10), Duration.ZERO);
                    assertThat(other.tryAcquireWrite("mixed-rw", Duration.ofSeconds(10))).isEmpty();
                    assertThat(other.tryAcquireRead("mixed-rw", Duration.ofSeconds(10))).hasValueSatisfying((shared) -> assertThat(shared.release()).isTrue());
                    assertThat(read.release()).isTrue();

                    List<String> keys = List.of("mixed-1", "mixed-2", "mixed-3", "mixed-4");
                    RedlockLease all = redlock.acquire(keys, Duration.ofSeconds(10), Duration.ZERO);
                    assertThat(other.tryAcquire("mixed-3", Duration.ofSeconds(10))).isEmpty();
                    assertThat(all.release()).isTrue();

                    try (RedlockLease lease = fenced.acquire("mixed-fenced", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
                        assertThat(lease.fencingToken()).isGreaterThan(token);
                        token = lease.fencingToken();
                    }
                }
                finally {
                    cut.heal();
                }
                // The node whose server was cut off reconnects, and is checked, before the next one is cut off.
                for (Redlock client : List.of(redlock, other, fenced)) {
                    awaitTrue(Duration.ofSeconds(15), () -> client.nodeStatuses().values().stream()
                            .allMatch((status) -> status.state() == NodeStatus.State.UP));
                }
            }
        }
    }

    private static Redlock redlock(boolean fencing) {
        return TestSupport.patientBuilder().nodes(standalone.uri(), group.uri(), cluster.uri()).fencing(fencing).build();
    }

}
