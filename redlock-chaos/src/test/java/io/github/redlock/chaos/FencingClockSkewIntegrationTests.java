package io.github.redlock.chaos;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.test.RedisNode;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens when every node lost its counter and one node's clock runs ahead of the others (an hour here,
 * by {@code libfaketime}): counters that start again start at the nodes' clocks, and the tokens given before the
 * loss came from the fast node's. A repair that took only the repaired node's own clock would let a quorum of
 * the slower nodes give tokens below them; the repair takes the largest clock of the nodes that answer it.
 */
class FencingClockSkewIntegrationTests {

    @Test
    void afterEveryCounterWasLostAQuorumOfSlowerClocksDoesNotGiveTokensBelowTheFastOnes(@TempDir Path directory) throws Exception {
        try (FakedClockNodes nodes = FakedClockNodes.start(directory, "+3600s")) {
            List<String> uris = nodes.uris();
            try (Redlock redlock = Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).fencing(true)
                    .restartQuarantine(RestartQuarantine.NEVER).build()) {
                long before = 0;
                for (int i = 0; i < 5; i++) {
                    try (RedlockLease lease = redlock.acquire("skew", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
                        before = lease.fencingToken();
                    }
                }
                // Every counter lost at once (to the repair, a fresh deployment), then nodes 0 to 3 reconnect and are
                // repaired while node 4, an hour ahead, answers with no counter: as after a restart of every node, without
                // the race of which node comes back first.
                for (RedisNode node : nodes.all()) {
                    forgetCounter(node);
                }
                for (int i = 0; i < 4; i++) {
                    dropClients(nodes.node(i));
                }
                awaitAllUp(redlock);
                nodes.node(4).cutOff(); // a quorum of the four slower clocks decides from now on
                try (RedlockLease after = redlock.acquire("skew", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
                    assertThat(after.fencingToken()).as("token after every counter was lost, given by slower clocks").isGreaterThan(before);
                }
                finally {
                    nodes.node(4).heal();
                }
            }
        }
    }

    /** Deletes a node's fencing counter and its repair mark (the default prefix, the byte 0xFF, the name). */
    private static void forgetCounter(RedisNode node) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            assertThat(connection.sync().del(key("fencing-counter"), key("fencing-mark"))).as("keys deleted").isEqualTo(2);
        }
        finally {
            client.shutdown();
        }
    }

    /** Drops every client connection of a node: the lock reconnects and checks the node before it votes again. */
    private static void dropClients(RedisNode node) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().clientKill(KillArgs.Builder.typeNormal().skipme(false));
        }
        catch (RuntimeException ex) {
            // this connection is among those dropped
        }
        finally {
            client.shutdown();
        }
    }

    private static byte[] key(String name) {
        byte[] prefix = "redlock:".getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = name.getBytes(StandardCharsets.US_ASCII);
        byte[] key = new byte[prefix.length + 1 + suffix.length];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        key[prefix.length] = (byte) 0xFF;
        System.arraycopy(suffix, 0, key, prefix.length + 1, suffix.length);
        return key;
    }

    private static void awaitAllUp(Redlock redlock) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP)) {
            assertThat(System.nanoTime() - deadline).as("every node votes again within 20 s").isNegative();
            Thread.sleep(10);
        }
    }

}
