package io.github.redlock.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClusterNodesBenchmark} measures what it says, on both sides, in a few hundred operations instead of a JMH
 * run: the operations hold and release their locks (a side whose locks failed would measure a cheaper path), the
 * cluster side's nodes are clusters of three masters, and its locks reach every master of every cluster (the keys
 * rotate over many slots) rather than one master each; no release publishes over the cluster's bus, as nobody waits
 * for these locks. The variant that takes the cluster side apart does what its name says: one master per cluster
 * locks, none publishes.
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
            Map<RedisNode, Long> before = perMaster(benchmark.clusters(), ClusterNodesBenchmarkIntegrationTests::sets);
            assertThat(held(benchmark)).isGreaterThanOrEqualTo(MIN_HELD);
            Map<RedisNode, Long> after = perMaster(benchmark.clusters(), ClusterNodesBenchmarkIntegrationTests::sets);
            assertThat(after).hasSize(ClusterNodesBenchmark.NODES * ClusterNodesBenchmark.MASTERS_PER_CLUSTER);
            after.forEach((master, sets) -> assertThat(sets - before.get(master)).as("locks set on %s", master)
                    .isGreaterThan(OPERATIONS / ClusterNodesBenchmark.MASTERS_PER_CLUSTER / 2));
            assertThat(perMaster(benchmark.clusters(), ClusterNodesBenchmarkIntegrationTests::publishesSent).values())
                    .as("releases published over the bus, none of them waited for").containsOnly(0L);
        }
        finally {
            benchmark.stop();
        }
    }

    @Test
    void theVariantWithoutSpreadOrPublishLocksOnOneMasterPerClusterAndPublishesNothing() {
        ClusterNodesBenchmark benchmark = started("cluster" + ClusterNodesBenchmark.ONE_MASTER + ClusterNodesBenchmark.NO_PUBLISH);
        try {
            assertThat(held(benchmark)).isGreaterThanOrEqualTo(MIN_HELD);
            for (RedisCluster cluster : benchmark.clusters()) {
                assertThat(perMaster(List.of(cluster), ClusterNodesBenchmarkIntegrationTests::sets).values())
                        .as("locks set on each master of %s", cluster).filteredOn((sets) -> sets > 0).singleElement()
                        .satisfies((sets) -> assertThat(sets).isGreaterThanOrEqualTo(MIN_HELD));
            }
            assertThat(perMaster(benchmark.clusters(), ClusterNodesBenchmarkIntegrationTests::publishesSent).values())
                    .as("releases published over the bus").containsOnly(0L);
        }
        finally {
            benchmark.stop();
        }
    }

    private static ClusterNodesBenchmark started(String nodes) {
        ClusterNodesBenchmark benchmark = new ClusterNodesBenchmark();
        benchmark.nodes = nodes;
        benchmark.start();
        return benchmark;
    }

    /** Runs the benchmark's operation {@value #OPERATIONS} times on one thread's keys; returns how many held their lock. */
    private static int held(ClusterNodesBenchmark benchmark) {
        ClusterNodesBenchmark.Keys keys = new ClusterNodesBenchmark.Keys();
        keys.name(benchmark);
        ClusterNodesBenchmark.Outcomes outcomes = new ClusterNodesBenchmark.Outcomes();
        int held = 0;
        for (int i = 0; i < OPERATIONS; i++) {
            held += benchmark.lockUnlock(keys, outcomes) ? 1 : 0;
        }
        assertThat(outcomes.held).isEqualTo(held);
        assertThat(outcomes.refused).isEqualTo(OPERATIONS - held);
        return held;
    }

    /** A figure of each master of the clusters, read on a connection of its own. */
    private static Map<RedisNode, Long> perMaster(List<RedisCluster> clusters, Function<RedisCommands<String, String>, Long> figure) {
        Map<RedisNode, Long> figures = new HashMap<>();
        for (RedisCluster cluster : clusters) {
            for (RedisNode master : cluster.masters()) {
                RedisClient client = RedisClient.create(master.uri());
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    figures.put(master, figure.apply(connection.sync()));
                }
                finally {
                    client.shutdown();
                }
            }
        }
        return figures;
    }

    /** How many {@code SET} commands the server ran so far ({@code INFO commandstats}). */
    private static long sets(RedisCommands<String, String> server) {
        return field(server.info("commandstats"), "cmdstat_set:calls=", ',');
    }

    /** How many {@code PUBLISH} messages the server sent to the other nodes of its cluster so far ({@code CLUSTER INFO}). */
    private static long publishesSent(RedisCommands<String, String> server) {
        return field(server.clusterInfo(), "cluster_stats_messages_publish_sent:", '\r');
    }

    private static long field(String text, String prefix, char end) {
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                String value = line.substring(prefix.length());
                int stop = value.indexOf(end);
                return Long.parseLong(((stop < 0) ? value : value.substring(0, stop)).trim());
            }
        }
        return 0;
    }

}
