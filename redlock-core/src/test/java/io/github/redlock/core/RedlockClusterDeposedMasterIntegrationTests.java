package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.ProcessCuts;
import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import io.github.redlock.test.TcpProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis Cluster whose master M of the lock's shard is cut off from the cluster bus while its replica R takes over
 * ({@code CLUSTER FAILOVER TAKEOVER}), beside four standalone masters ({@code [C, s0, s1, s2, s3]}, quorum 3), on real
 * processes. M and R announce bus ports behind proxies that then drop every byte (nothing reaches M over the bus, so it
 * never hears of R, and R's answers to M are lost too); the cluster's node timeout is 15 s, Redis 7.0's default, so M
 * keeps calling itself the master and accepting writes all along. Client A, connected before, loses s2 and s3 and keeps
 * its view in which M serves the key (M serves the first slots, so A reads the view again from M). Client B, started
 * after the takeover, sees R, quarantines it and counts it. Without
 * the other masters' confirmation A takes the lock on {C via M, s0, s1} while B holds it on {C via R, s2, s3}: two valid
 * leases (the test failed so before the rule). With it A's view is confirmed by no other master, and A is refused.
 * <p>
 * The same with the replica elected by the other masters: {@code CLUSTER FAILOVER FORCE}, and the cluster's own failover
 * once they time M out (15 s; in the soak profile). An election needs R's bus links whole, which the proxies would cut
 * with M's, so these cut M's bus alone, both ways, with {@link ProcessCuts} (root and nftables).
 */
class RedlockClusterDeposedMasterIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(4);

    private RedisCluster cluster;

    private final List<TcpProxy> proxies = new ArrayList<>();

    private @Nullable ProcessCuts cuts;

    @BeforeEach
    void startCluster() {
        this.cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stopCluster() {
        if (this.cuts != null) {
            this.cuts.close();
        }
        this.proxies.forEach(TcpProxy::close);
        this.cluster.close();
    }

    @Test
    void aClientWithTheDeposedMasterOfAShardStopsCountingItOnceTheOtherMastersFollowTheTakeover() {
        RedisNode deposed = this.cluster.masters().get(0);
        RedisNode promoted = this.cluster.replicasOf(deposed).get(0);
        // The proxies first: a node announces its new bus port in its pings, which a 15 s node timeout makes rare.
        TcpProxy deposedBus = busProxy(deposed);
        TcpProxy promotedBus = busProxy(promoted);
        setNodeTimeout();
        deposedMasterBesideItsPromotedReplica(deposed, () -> {
            deposedBus.silence();
            promotedBus.silence();
        }, "TAKEOVER", Duration.ofSeconds(20));
    }

    @Test
    void aClientWithTheDeposedMasterOfAShardStopsCountingItOnceTheOtherMastersElectItsReplica() {
        Capabilities.assume(Capabilities.NFT, ProcessCuts.available(), "Processes cannot be cut here (run as root with nftables)");
        RedisNode deposed = this.cluster.masters().get(0);
        setNodeTimeout();
        deposedMasterBesideItsPromotedReplica(deposed, () -> cutBus(deposed), "FORCE", Duration.ofSeconds(20));
    }

    @Test
    @EnabledIfSystemProperty(named = "redlock.soak", matches = "true", disabledReason = "the cluster's own failover takes 15 s to begin: -Predlock-soak")
    void aClientWithTheDeposedMasterOfAShardStopsCountingItOnceTheClusterFailsItsShardOverByItself() {
        Capabilities.assume(Capabilities.NFT, ProcessCuts.available(), "Processes cannot be cut here (run as root with nftables)");
        RedisNode deposed = this.cluster.masters().get(0);
        setNodeTimeout();
        deposedMasterBesideItsPromotedReplica(deposed, () -> cutBus(deposed), null, Duration.ofSeconds(60));
    }

    /**
     * A takes locks through the deposed master while B counts the promoted replica, as the class describes.
     * @param cutBus cuts the deposed master off from the cluster bus
     * @param failover how the replica is told to take over ({@code CLUSTER FAILOVER <failover>}), or null for the
     * cluster's own failover
     * @param promotion how long the promotion may take to show
     */
    private void deposedMasterBesideItsPromotedReplica(RedisNode deposed, Runnable cutBus, @Nullable String failover, Duration promotion) {
        String key = keyServedBy(deposed);
        RedisNode promoted = this.cluster.replicasOf(deposed).get(0);
        TcpProxy s2 = proxy(redis.node(2));
        TcpProxy s3 = proxy(redis.node(3));
        try (Redlock a = redlock(this.cluster.uri(), redis.node(0).uri(), redis.node(1).uri(), "redis://" + s2.hostAndPort(),
                "redis://" + s3.hostAndPort())) {
            String clusterNode = a.nodeStatuses().keySet().iterator().next();
            awaitTrue(Duration.ofSeconds(30), () -> a.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            s2.silence();
            s3.silence();
            cutBus.run();
            if (failover != null) {
                ServerCommands.call(promoted, "CLUSTER", "FAILOVER", failover);
            }
            RedisNode viewer = this.cluster.masters().get(1);
            awaitTrue(promotion, () -> servesSlots(ServerCommands.call(viewer, "CLUSTER", "NODES"), promoted));
            try (Redlock b = redlock(seedsEndingWith(deposed), redis.node(0).uri(), redis.node(1).uri(), redis.node(2).uri(), redis.node(3).uri())) {
                String clusterNodeOfB = b.nodeStatuses().keySet().iterator().next();
                awaitTrue(Duration.ofSeconds(40), () -> b.nodeStatuses().get(clusterNodeOfB).state() == NodeStatus.State.UP
                        && b.nodeStatuses().get(clusterNodeOfB).servers().stream().anyMatch((server) -> server.startsWith(promoted.hostAndPort() + " ")));
                try (NodeInspector inspector = new NodeInspector(List.of(deposed.uri()))) {
                    assertThat(inspector.role(0)).as("the deposed master still answers as a master").isEqualTo("master");
                }
                assertThat(servesSlots(ServerCommands.call(deposed, "CLUSTER", "NODES"), deposed))
                        .as("the deposed master still serves its slots in its own view").isTrue();
                Optional<RedlockLease> first = a.tryAcquire(key, MAX_TTL);
                Optional<RedlockLease> second = b.tryAcquire(key, MAX_TTL);
                boolean bothValid = first.isPresent() && second.isPresent() && first.get().isValid() && second.get().isValid();
                assertThat(bothValid).as("two valid leases of %s at once: A's through the deposed master %s, B's through the promoted %s", key,
                        deposed.hostAndPort(), promoted.hostAndPort()).isFalse();
                assertThat(first).as("A, whose view no other master confirms").isEmpty();
                assertThat(second).as("B").isPresent();
                assertThat(a.nodeStatuses().get(clusterNode).state()).as("the cluster node in A").isNotEqualTo(NodeStatus.State.UP);
                second.get().release();
            }
        }
    }

    /** Redis 7.0's default node timeout on every node: a master cut off from the bus goes on accepting writes as long. */
    private void setNodeTimeout() {
        for (RedisNode node : this.cluster.nodes()) {
            ServerCommands.call(node, "CONFIG", "SET", "cluster-node-timeout", "15000");
        }
    }

    /**
     * Cuts the master's cluster bus both ways and nothing else: it reaches no other node's bus port, and no other node
     * reaches its own. The other nodes' links to each other stay whole, so that they can elect its replica.
     */
    private void cutBus(RedisNode master) {
        this.cuts = ProcessCuts.create();
        List<RedisNode> others = this.cluster.nodes().stream().filter((node) -> node != master).toList();
        for (RedisNode other : others) {
            this.cuts.join(other.pid());
            this.cuts.cut(other.pid(), master.port() + 10000);
        }
        this.cuts.join(master.pid());
        this.cuts.cut(master.pid(), others.stream().mapToInt((node) -> node.port() + 10000).toArray());
    }

    /**
     * A key of the first shard's master: A reads the view again (at each refresh of its records) from the first master
     * of its view that it reaches, which is then the deposed one, so A keeps the view in which it serves the key.
     */
    private String keyServedBy(RedisNode master) {
        for (int i = 0;; i++) {
            if (this.cluster.masterOf("redlock:k" + i) == master) {
                return "k" + i;
            }
        }
    }

    /** The cluster's node entry with the given node as its last seed: B, started later, reads its view from another. */
    private String seedsEndingWith(RedisNode last) {
        List<RedisNode> seeds = new ArrayList<>(this.cluster.nodes());
        seeds.remove(last);
        seeds.add(last);
        return "redis-cluster://" + String.join(",", seeds.stream().map(RedisNode::hostAndPort).toList());
    }

    /** Whether {@code CLUSTER NODES} shows the node as a master with slots. */
    private static boolean servesSlots(String clusterNodes, RedisNode node) {
        return clusterNodes.lines().anyMatch((line) -> {
            String[] words = line.split(" ");
            return words.length > 8 && words[1].startsWith("127.0.0.1:" + node.port() + "@") && words[2].contains("master");
        });
    }

    /**
     * A proxy in front of the node's cluster bus ({@code port + 10000}), which the node then announces as its bus port;
     * returns once every other node of the cluster reaches it there.
     */
    private TcpProxy busProxy(RedisNode node) {
        TcpProxy proxy = TcpProxy.to("127.0.0.1", node.port() + 10000);
        this.proxies.add(proxy);
        ServerCommands.call(node, "CONFIG", "SET", "cluster-announce-bus-port", Integer.toString(proxy.port()));
        String announced = "127.0.0.1:" + node.port() + "@" + proxy.port();
        // Every other node reaches it there (Redis 6.2 keeps the former port in the node's view of itself).
        awaitTrue(Duration.ofSeconds(20), () -> this.cluster.nodes().stream().filter((each) -> each != node)
                .allMatch((each) -> ServerCommands.call(each, "CLUSTER", "NODES").contains(announced)));
        return proxy;
    }

    private TcpProxy proxy(RedisNode node) {
        TcpProxy proxy = TcpProxy.to(node);
        this.proxies.add(proxy);
        return proxy;
    }

    private static Redlock redlock(String... nodes) {
        return Redlock.builder().nodes(nodes).nodeTimeout(Duration.ofMillis(300)).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO).build();
    }

}
