package io.github.redlock.test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisSentinelGroupIntegrationTests {

    @Test
    void startsAGroupWhoseSentinelsKnowTheMasterTheReplicaAndEachOther() throws IOException {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            assertThat(group.servers()).hasSize(2);
            assertThat(group.sentinels()).hasSize(3);
            assertThat(group.master()).isSameAs(group.servers().get(0));
            assertThat(group.replicas()).containsExactly(group.servers().get(1));
            assertThat(role(group.replicas().get(0))).isEqualTo("slave");
            for (RedisNode sentinel : group.sentinels()) {
                Map<String, String> master = SentinelQueries.fields(Resp.call(sentinel.port(), 1000, "SENTINEL", "MASTER", "redlock"));
                assertThat(master).containsEntry("port", String.valueOf(group.master().port()))
                        .containsEntry("num-slaves", "1").containsEntry("num-other-sentinels", "2").containsEntry("quorum", "2");
            }
        }
    }

    @Test
    void lettuceConnectsThroughTheSentinelUriToTheMaster() throws IOException {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisURI uri = RedisURI.create(group.uri());
            assertThat(uri.getSentinelMasterId()).isEqualTo("redlock");
            assertThat(uri.getSentinels()).extracting(RedisURI::getPort)
                    .containsExactlyElementsOf(group.sentinels().stream().map(RedisNode::port).toList());
            assertThat(portReachedThrough(uri)).isEqualTo(group.master().port());
            assertThat(Resp.call(group.master().port(), 1000, "GET", "written-through-sentinels")).isEqualTo("yes");
        }
    }

    @Test
    void afterFailoverANewConnectionReachesTheNewMaster() throws IOException {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisNode previous = group.master();
            RedisURI uri = RedisURI.create(group.uri());
            assertThat(portReachedThrough(uri)).isEqualTo(previous.port());

            RedisNode promoted = group.failover();

            assertThat(promoted).isNotSameAs(previous).isSameAs(group.servers().get(1));
            assertThat(group.master()).isSameAs(promoted);
            assertThat(role(promoted)).isEqualTo("master");
            assertThat(portReachedThrough(uri)).isEqualTo(promoted.port());
        }
    }

    @Test
    void killedMasterIsReplacedByTheSentinels() throws IOException {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisNode killed = group.killMaster();
            assertThat(killed.isRunning()).isFalse();

            RedisNode promoted = group.awaitFailover(killed);

            assertThat(promoted).isSameAs(group.servers().get(1));
            assertThat(role(promoted)).isEqualTo("master");
            assertThat(portReachedThrough(RedisURI.create(group.uri()))).isEqualTo(promoted.port());
        }
    }

    @Test
    void closeStopsEveryProcess() {
        RedisSentinelGroup group = RedisSentinelGroup.start("locks-b", 1, 1);
        assertThat(group.uri()).isEqualTo("redis-sentinel://127.0.0.1:" + group.sentinels().get(0).port() + "#locks-b");
        List<RedisNode> processes = new java.util.ArrayList<>(group.servers());
        processes.addAll(group.sentinels());
        group.close();
        for (RedisNode process : processes) {
            assertThat(process.isRunning()).isFalse();
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> Resp.command(process.port(), 300, "PING"));
        }
    }

    @Test
    void rejectsAMasterNameThatIsNotAUriFragment() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisSentinelGroup.start("my master", 1, 3))
                .withMessageContaining("master name");
    }

    /** Connects as a user would, through the sentinels, writes a key, and returns the port of the server reached. */
    private static int portReachedThrough(RedisURI uri) {
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
            connection.sync().set("written-through-sentinels", "yes");
            String server = connection.sync().info("server");
            String port = server.substring(server.indexOf("tcp_port:") + "tcp_port:".length()).lines().findFirst().orElseThrow();
            return Integer.parseInt(port.trim());
        }
        finally {
            client.shutdown();
        }
    }

    private static Object role(RedisNode node) throws IOException {
        return ((List<?>) Resp.call(node.port(), 1000, "ROLE")).get(0);
    }

}
