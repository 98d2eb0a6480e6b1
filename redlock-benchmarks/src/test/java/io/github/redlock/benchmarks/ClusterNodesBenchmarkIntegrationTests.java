package io.github.redlock.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClusterNodesBenchmark} measures what it says, on both sides, in a few hundred operations instead of a JMH
 * run: the operations hold and release their locks (a side whose locks failed would measure a cheaper path), the
 * cluster side's nodes are clusters of three masters, and its locks reach every master of every cluster (the keys
 * rotate over many slots) rather than one master each.
 */
class ClusterNodesBenchmarkIntegrationTests {

    private static final int OPERATIONS = 300;

    /**
     * The operations that must hold their lock: nearly all (a side whose nodes do not vote holds none), less a few that
     * may find three nodes slower than the node timeout of 50 ms on a loaded machine.
     */
    private static final int MIN_HELD = OPERATIONS * 95 / 100;

    @Test
    void everyOperationOnStandaloneNodesHoldsAndReleasesItsLock() {
        ClusterNodesBenchmark benchmark = started("standalone");
        try {
            assertThat(benchmark.nodeNames()).hasSize(ClusterNodesBenchmark.NODES);
            assertThat(benchmark.clusters()).isEmpty();
            assertThat(held(benchmark)).isGreaterThanOrEqualTo(MIN_HELD);
        }
        finally {
            benchmark.stop();
        }
    }

    @Test
    void everyOperationOnClusterNodesHoldsAndReleasesItsLockOnEveryMasterOfEveryCluster() {
        ClusterNodesBenchmark benchmark = started("cluster");
        try {
            assertThat(benchmark.nodeNames()).hasSize(ClusterNodesBenchmark.NODES);
            assertThat(benchmark.clusters()).hasSize(ClusterNodesBenchmark.NODES)
                    .allSatisfy((cluster) -> assertThat(cluster.masters()).hasSize(ClusterNodesBenchmark.MASTERS_PER_CLUSTER));
            Map<RedisNode, Long> before = setsPerMaster(benchmark.clusters());
            assertThat(held(benchmark)).isGreaterThanOrEqualTo(MIN_HELD);
            Map<RedisNode, Long> after = setsPerMaster(benchmark.clusters());
            assertThat(after).hasSize(ClusterNodesBenchmark.NODES * ClusterNodesBenchmark.MASTERS_PER_CLUSTER);
            after.forEach((master, sets) -> assertThat(sets - before.get(master)).as("locks set on %s", master)
                    .isGreaterThan(OPERATIONS / ClusterNodesBenchmark.MASTERS_PER_CLUSTER / 2));
        }
        finally {
            benchmark.stop();
        }
    }

    /** Runs the benchmark's operation {@value #OPERATIONS} times on one thread's keys; returns how many held their lock. */
    private static int held(ClusterNodesBenchmark benchmark) {
        ClusterNodesBenchmark.Keys keys = new ClusterNodesBenchmark.Keys();
        ClusterNodesBenchmark.Outcomes outcomes = new ClusterNodesBenchmark.Outcomes();
        int held = 0;
        for (int i = 0; i < OPERATIONS; i++) {
            held += benchmark.lockUnlock(keys, outcomes) ? 1 : 0;
        }
        assertThat(outcomes.held).isEqualTo(held);
        assertThat(outcomes.refused).isEqualTo(OPERATIONS - held);
        return held;
    }

    private static ClusterNodesBenchmark started(String nodes) {
        ClusterNodesBenchmark benchmark = new ClusterNodesBenchmark();
        benchmark.nodes = nodes;
        benchmark.start();
        return benchmark;
    }

    /** How many {@code SET} commands each master of the clusters ran so far ({@code INFO commandstats}). */
    private static Map<RedisNode, Long> setsPerMaster(List<RedisCluster> clusters) {
        Map<RedisNode, Long> sets = new HashMap<>();
        for (RedisCluster cluster : clusters) {
            for (RedisNode master : cluster.masters()) {
                RedisClient client = RedisClient.create(master.uri());
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    sets.put(master, commandCalls(connection.sync().info("commandstats"), "set"));
                }
                finally {
                    client.shutdown();
                }
            }
        }
        return sets;
    }

    private static long commandCalls(String commandStats, String command) {
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
            }
        }
        return 0;
    }

}
