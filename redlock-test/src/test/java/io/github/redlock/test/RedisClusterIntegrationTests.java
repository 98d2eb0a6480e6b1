package io.github.redlock.test;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisClusterIntegrationTests {

    @Test
    void startsAClusterThatEveryNodeReportsOk() throws IOException {
        try (RedisCluster cluster = RedisCluster.start()) {
            assertThat(cluster.nodes()).hasSize(3).extracting(RedisNode::port).doesNotHaveDuplicates();
            assertThat(cluster.masters()).containsExactlyElementsOf(cluster.nodes());
            for (RedisNode node : cluster.nodes()) {
                assertThat((String) Resp.call(node.port(), 1000, "CLUSTER", "INFO"))
                        .contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
                assertThat(cluster.replicasOf(node)).isEmpty();
            }
            assertThat(cluster.uri()).isEqualTo("redis-cluster://127.0.0.1:" + cluster.nodes().get(0).port()
                    + ",127.0.0.1:" + cluster.nodes().get(1).port() + ",127.0.0.1:" + cluster.nodes().get(2).port());
        }
    }

    @Test
    void keySetThroughLettuceLandsOnTheMasterThatOwnsItsSlot() throws IOException {
        try (RedisCluster cluster = RedisCluster.start()) {
            RedisClusterClient client = RedisClusterClient.create(seeds(cluster));
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                Set<Integer> holders = new HashSet<>();
                for (int i = 0; i < 100; i++) {
                    String key = "lock:" + i;
                    connection.sync().set(key, "v" + i);
                    RedisNode owner = cluster.masterOf(key);
                    assertThat(Resp.call(owner.port(), 1000, "CLUSTER", "KEYSLOT", key)).isEqualTo((long) SlotHash.getSlot(key));
                    assertThat(Resp.call(owner.port(), 1000, "GET", key)).isEqualTo("v" + i);
                    for (RedisNode other : cluster.masters()) {
                        if (other != owner) {
                            assertThat(Resp.call(other.port(), 1000, "GET", key)).asString().startsWith("-MOVED");
                        }
                    }
                    holders.add(owner.port());
                }
                assertThat(holders).as("100 keys spread over the 3 masters").hasSize(3);
            }
            finally {
                client.shutdown();
            }
        }
    }

    @Test
    void failoverPromotesTheReplicaAndDemotesTheMaster() throws IOException {
        try (RedisCluster cluster = RedisCluster.start(3, 1)) {
            assertThat(cluster.nodes()).hasSize(6);
            RedisNode master = cluster.masterOf("order:42");
            RedisNode replica = cluster.replicasOf(master).get(0);
            assertThat(Resp.call(master.port(), 1000, "SET", "order:42", "paid")).isEqualTo("OK");
            assertThat(Resp.call(master.port(), 1000, "WAIT", "1", "1000")).isEqualTo(1L);

            assertThat(cluster.failover(master)).isSameAs(replica);

            assertThat(cluster.masterOf("order:42")).isSameAs(replica);
            assertThat(cluster.masters()).contains(replica).doesNotContain(master).hasSize(3);
            assertThat(role(replica)).isEqualTo("master");
            assertThat(cluster.replicasOf(replica)).containsExactly(master);
            RedisClusterClient client = RedisClusterClient.create(seeds(cluster));
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().get("order:42")).isEqualTo("paid");
            }
            finally {
                client.shutdown();
            }
        }
    }

    @Test
    void killedMasterIsReplacedByItsReplicaAndRejoinsAsOneAfterReset() throws IOException {
        try (RedisCluster cluster = RedisCluster.start(3, 1)) {
            RedisNode master = cluster.masters().get(1);
            RedisNode replica = cluster.replicasOf(master).get(0);
            cluster.kill(master);

            assertThat(cluster.awaitFailover(master)).isSameAs(replica);

            cluster.reset();
            assertThat(master.isRunning()).isTrue();
            assertThat(cluster.replicasOf(replica)).containsExactly(master);
            assertThat(role(master)).isEqualTo("slave");
            for (RedisNode node : cluster.masters()) {
                assertThat(Resp.call(node.port(), 1000, "DBSIZE")).isEqualTo(0L);
            }
        }
    }

    @Test
    void killedMasterRestartedOnItsOwnRejoinsAsAReplicaOfItsReplacementWithTheKeysKept() throws IOException {
        try (RedisCluster cluster = RedisCluster.start(3, 1)) {
            RedisNode master = cluster.masterOf("order:42");
            RedisNode replica = cluster.replicasOf(master).get(0);
            assertThat(Resp.call(master.port(), 1000, "SET", "order:42", "paid")).isEqualTo("OK");
            assertThat(Resp.call(master.port(), 1000, "WAIT", "1", "1000")).isEqualTo(1L);
            cluster.kill(master);
            assertThat(cluster.awaitFailover(master)).isSameAs(replica);

            master.restart();
            cluster.awaitHealthy();

            assertThat(cluster.replicasOf(replica)).containsExactly(master);
            assertThat(role(master)).isEqualTo("slave");
            assertThat(Resp.call(replica.port(), 1000, "GET", "order:42")).isEqualTo("paid");
        }
    }

    @Test
    void failoverOfAMasterWithoutReplicaSaysWhatToDo() {
        try (RedisCluster cluster = RedisCluster.start()) {
            RedisNode master = cluster.masters().get(0);
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> cluster.failover(master))
                    .withMessageContaining("RedisCluster.start(masters, 1)");
        }
    }

    @Test
    void closeStopsEveryNode() {
        RedisCluster cluster = RedisCluster.start();
        List<RedisNode> nodes = cluster.nodes();
        cluster.close();
        for (RedisNode node : nodes) {
            assertThat(node.isRunning()).isFalse();
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> Resp.command(node.port(), 300, "PING"));
        }
    }

    @Test
    void rejectsFewerThanThreeMasters() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisCluster.start(2, 1)).withMessageContaining("3 masters");
    }

    /** The seed nodes of the harness's {@code redis-cluster://} form, as Lettuce's cluster client takes them. */
    private static List<RedisURI> seeds(RedisCluster cluster) {
        String uri = cluster.uri();
        assertThat(uri).startsWith("redis-cluster://");
        return List.of(uri.substring("redis-cluster://".length()).split(",")).stream()
                .map((hostAndPort) -> RedisURI.create("redis://" + hostAndPort)).toList();
    }

    private static Object role(RedisNode node) throws IOException {
        return ((List<?>) Resp.call(node.port(), 1000, "ROLE")).get(0);
    }

}
