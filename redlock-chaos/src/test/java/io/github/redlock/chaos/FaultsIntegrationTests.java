package io.github.redlock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The durable restart faults and the failovers of a Sentinel node and of a Redis Cluster node on real processes: the
 * configuration and the data each leaves a node with.
 */
class FaultsIntegrationTests {

    private static final RedisClient client = RedisClient.create();

    @AfterAll
    static void shutDown() {
        client.shutdown();
    }

    @Test
    void nodesRestartedEmptyUnderTheDurableConfigurationKeepTheirDataThroughADurableRestartUntilAnotherRestart() {
        try (RedisNodes redis = RedisNodes.start(5)) {
            List<RedisNode> nodes = redis.nodes();
            Faults faults = new Faults(nodes, List.of(), null, 2_000);
            Random random = new Random(7);
            nodes.forEach((node) -> call(node, (commands) -> commands.set("k", "before")));
            faults.inject(FaultKind.DURABLE_EMPTY_RESTART, random);
            List<Integer> durable = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                if (durable(nodes.get(i))) {
                    durable.add(i);
                    assertThat(call(nodes.get(i), (commands) -> commands.get("k"))).as("node %d came back empty", i).isNull();
                }
            }
            assertThat(durable).as("a majority restarted durable").hasSize(3);
            nodes.forEach((node) -> call(node, (commands) -> commands.set("k", "acknowledged")));

            faults.inject(FaultKind.DURABLE_RESTART, random);
            int restarted = Integer.parseInt(faults.injected().get(1).detail().split(" ")[1]);
            assertThat(durable).as("the crashed node is one that runs durable").contains(restarted);
            assertThat(call(nodes.get(restarted), (commands) -> commands.get("k"))).as("what it acknowledged").isEqualTo("acknowledged");
            assertThat(durable(nodes.get(restarted))).isTrue();

            faults.inject(FaultKind.EVERY_NODE_RESTART, random);
            for (RedisNode node : nodes) {
                assertThat(durable(node)).as("%s runs as the harness runs nodes again", node).isFalse();
                assertThat(call(node, (commands) -> commands.get("k"))).isNull();
            }
        }
    }

    /**
     * The hazard the failover fault must cause, twice in a row (the killed server must have rejoined as a replica for
     * the second): a key the master acknowledged while the replica lagged is missing on the promoted replica.
     */
    @Test
    void aFailoverPromotesAReplicaWithoutTheWritesOfTheLagAndTheKilledServerRejoinsForTheNext() {
        try (RedisNodes redis = RedisNodes.start(4); SentinelFailover group = SentinelFailover.start()) {
            Faults faults = new Faults(redis.nodes(), group, List.of(), null, 2_000);
            for (int round = 1; round <= 2; round++) {
                RedisNode master = group.group().master();
                String replicated = "before-" + round;
                // WAIT: the replica has it too before the lag starts (a replica in sync may not have the last write yet).
                call(master, (commands) -> commands.set(replicated, "replicated"));
                assertThat(call(master, (commands) -> String.valueOf(commands.waitForReplication(1, 10_000)))).as("replicas that have it").isEqualTo("1");
                group.awaitReady();
                String lagged = "lagged-" + round;
                long start = System.nanoTime();
                String detail = group.failOverLosingWrites(() -> call(master, (commands) -> commands.set(lagged, "acknowledged")));
                long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.println("failover " + round + " in " + millis + " ms: " + detail);
                RedisNode promoted = group.group().master();
                assertThat(promoted).as("the replica was promoted").isNotSameAs(master);
                assertThat(call(promoted, (commands) -> commands.get(replicated))).isEqualTo("replicated");
                assertThat(call(promoted, (commands) -> commands.get(lagged))).as("what the master acknowledged in the lag").isNull();
                assertThat(call(master, (commands) -> commands.info("replication"))).as("the killed server is a replica again")
                    .contains("role:slave", "master_port:" + promoted.port());
            }
            faults.inject(FaultKind.FAILOVER, new Random(7));
            assertThat(faults.injected().get(0).detail()).startsWith("nodes [").contains("cut off from the clients", "promoted");
            for (RedisNode node : redis.nodes()) {
                assertThat(call(node, (commands) -> commands.ping())).as("%s takes clients again", node).isEqualTo("PONG");
            }
        }
    }

    /**
     * The deposed master fault's mechanics, twice in a row (the former master must have become the promoted one's replica
     * for the second): while client 0's paths are silent, the former master still answers as a master and takes writes
     * beside the promoted one, and a command through a silenced proxy gets no answer; afterwards the former master
     * replicates the promoted one (the writes it took meanwhile are gone) and the paths forward again.
     */
    @Test
    void aDeposedMasterTakesWritesWhileTheClientsPathsAreSilentAndRejoinsAsTheReplicaForTheNext() {
        try (RedisNodes redis = RedisNodes.start(4); SentinelFailover group = SentinelFailover.start();
                ClientPaths paths = ClientPaths.start(redis.nodes(), 2, group.group())) {
            List<String> standalone = redis.nodes().stream().map(RedisNode::uri).toList();
            List<String> all = new ArrayList<>(standalone);
            all.add(group.uri());
            List<String> ofClient = paths.nodeUris(standalone, group.uri(), all);
            assertThat(ofClient.subList(2, 4)).as("the standalone nodes client 0 reaches directly").isEqualTo(standalone.subList(2, 4));
            assertThat(ofClient.get(4)).as("client 0's sentinels").startsWith("redis-sentinel://")
                .endsWith("#" + group.group().masterName()).isNotEqualTo(group.uri());
            for (int round = 1; round <= 2; round++) {
                RedisNode master = group.group().master();
                String key = "deposed-" + round;
                List<String> seen = new ArrayList<>();
                String detail = group.failOverKeepingTheMaster(paths::silence, () -> {
                    seen.add(call(master, (commands) -> commands.info("replication")));
                    seen.add(call(master, (commands) -> commands.set(key, "written")));
                    seen.add(Boolean.toString(answers(ofClient.get(0))));
                });
                System.out.println("deposed master " + round + ": " + detail);
                RedisNode promoted = group.group().master();
                assertThat(promoted).as("the replica was promoted").isNotSameAs(master);
                assertThat(seen.get(0)).as("the deposed master after the failover").contains("role:master");
                assertThat(seen.get(1)).as("a write to the deposed master").isEqualTo("OK");
                assertThat(seen.get(2)).as("a command through client 0's silent proxy is answered").isEqualTo("false");
                paths.restore();
                assertThat(answers(ofClient.get(0))).as("the proxy forwards again").isTrue();
                assertThat(call(master, (commands) -> commands.info("replication"))).as("the deposed master is a replica now")
                    .contains("role:slave", "master_port:" + promoted.port());
                assertThat(call(promoted, (commands) -> commands.get(key))).as("what the deposed master took").isNull();
            }
        }
    }

    /**
     * The same hazard in a Redis Cluster node, twice in a row on the shard of one key (the killed server must have
     * rejoined the shard as the promoted one's replica for the second): a key the master acknowledged while its replica
     * lagged is missing on the promoted replica, a key written before is not.
     */
    @Test
    void aClusterFailoverPromotesAReplicaWithoutTheWritesOfTheLagAndTheKilledServerRejoinsTheShardForTheNext() {
        String key = "redlock:x:0";
        try (RedisNodes redis = RedisNodes.start(4); ClusterFailover cluster = ClusterFailover.start(List.of(key))) {
            Faults faults = new Faults(redis.nodes(), null, cluster, List.of(), null, 2_000);
            for (int round = 1; round <= 2; round++) {
                RedisNode master = cluster.cluster().masterOf(key);
                String replicated = "{" + key + "}before-" + round; // the key's slot, so the same master
                call(master, (commands) -> commands.set(replicated, "replicated"));
                assertThat(call(master, (commands) -> String.valueOf(commands.waitForReplication(1, 10_000)))).as("replicas that have it").isEqualTo("1");
                String lagged = "{" + key + "}lagged-" + round;
                long start = System.nanoTime();
                String detail = cluster.failOverLosingWrites(new Random(round), () -> call(master, (commands) -> commands.set(lagged, "acknowledged")));
                long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.println("cluster failover " + round + " in " + millis + " ms: " + detail);
                RedisNode promoted = cluster.cluster().masterOf(key);
                assertThat(promoted).as("the replica was promoted").isNotSameAs(master);
                assertThat(call(promoted, (commands) -> commands.get(replicated))).isEqualTo("replicated");
                assertThat(call(promoted, (commands) -> commands.get(lagged))).as("what the master acknowledged in the lag").isNull();
                assertThat(cluster.cluster().replicasOf(promoted)).as("the killed server is the shard's replica again").containsExactly(master);
                assertThat(call(master, (commands) -> commands.info("replication"))).contains("role:slave", "master_port:" + promoted.port(),
                        "master_link_status:up");
            }
            faults.inject(FaultKind.CLUSTER_FAILOVER, new Random(7));
            assertThat(faults.injected().get(0).detail()).startsWith("nodes [").contains("cut off from the clients", "of " + key, "promoted");
            for (RedisNode node : redis.nodes()) {
                assertThat(call(node, (commands) -> commands.ping())).as("%s takes clients again", node).isEqualTo("PONG");
            }
        }
    }

    /** Whether a node answers PING within 500 ms at that URI. */
    private static boolean answers(String uri) {
        RedisURI timed = RedisURI.create(uri);
        timed.setTimeout(java.time.Duration.ofMillis(500));
        try (StatefulRedisConnection<String, String> connection = client.connect(timed)) {
            return "PONG".equals(connection.sync().ping());
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private static boolean durable(RedisNode node) {
        return "yes".equals(call(node, (commands) -> commands.configGet("appendonly").get("appendonly")))
                && "always".equals(call(node, (commands) -> commands.configGet("appendfsync").get("appendfsync")));
    }

    private static String call(RedisNode node, Function<RedisCommands<String, String>, String> command) {
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(node.uri()))) {
            return command.apply(connection.sync());
        }
    }

}
