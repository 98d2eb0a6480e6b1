package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import io.github.redlock.test.RedisSentinelGroup;
import io.github.redlock.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel group whose former master keeps answering as a master after a failover, beside four standalone masters
 * ({@code [G, s0, s1, s2, s3]}, quorum 3), on real processes. Client A loses s2 and s3 through proxies that drop every
 * byte and keep the sockets open, and misses the failover's announcements: its paths to the sentinels go silent the
 * same way, or the one sentinel it lists is stopped. Client B reaches everything, follows the failover, and counts the
 * promoted replica once its quarantine is over. The deposed master still grants A writes (here it refuses the
 * sentinels' {@code REPLICAOF}, as a master cut off from them would never get it; without that it grants them for about
 * 11 s after the failover). Without the sentinels' confirmation A takes the lock on {G deposed, s0, s1} while B holds it on
 * {G promoted, s2, s3}: two valid leases at once (6 runs of 6 before the confirmation). With it, A stops counting G
 * within the confirmation's bound of losing its sentinels, and is refused.
 */
class RedlockSentinelDeposedMasterIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(4);

    private RedisSentinelGroup group;

    private final List<TcpProxy> proxies = new ArrayList<>();

    @BeforeEach
    void startGroup() {
        this.group = RedisSentinelGroup.start();
        // The deposed master is never turned into a replica: it refuses the sentinels' REPLICAOF (and SLAVEOF), as a
        // master cut off from the sentinels never hears it, so the window in which it grants writes does not close.
        ServerCommands.call(this.group.master(), "ACL", "SETUSER", "default", "-replicaof", "-slaveof");
    }

    @AfterEach
    void stopGroup() {
        this.proxies.forEach(TcpProxy::close);
        this.group.close();
    }

    /** A's paths to s2, s3 and every sentinel go silent before the failover. */
    @Test
    void aClientWhosePathsToTheSentinelsGoSilentStopsCountingTheDeposedMaster() {
        List<TcpProxy> sentinels = this.group.sentinels().stream().map(this::proxy).toList();
        String sentinelsOfA = sentinelUri(sentinels.stream().map(TcpProxy::hostAndPort).toList());
        assertOneHolderAfterAFailoverThatAMisses(sentinelsOfA, this.group.uri(), () -> sentinels.forEach(TcpProxy::silence), true);
    }

    /** A lists one sentinel, B the other two; A's sentinel is stopped (SIGSTOP) before the failover. */
    @Test
    void aClientWhoseOnlySentinelIsStoppedStopsCountingTheDeposedMaster() {
        List<RedisNode> all = this.group.sentinels();
        String sentinelsOfA = sentinelUri(List.of(all.get(0).hostAndPort()));
        String sentinelsOfB = sentinelUri(List.of(all.get(1).hostAndPort(), all.get(2).hostAndPort()));
        try {
            assertOneHolderAfterAFailoverThatAMisses(sentinelsOfA, sentinelsOfB, () -> all.get(0).pause(), true);
        }
        finally {
            all.get(0).resume();
        }
    }

    /**
     * The control: A's paths to the sentinels stay up, so A hears the announcement, drops the deposed master, and is
     * refused (it quarantines the promoted replica). Passes with and without the confirmation.
     */
    @Test
    void aClientThatHearsTheFailoverFollowsIt() {
        List<TcpProxy> sentinels = this.group.sentinels().stream().map(this::proxy).toList();
        String sentinelsOfA = sentinelUri(sentinels.stream().map(TcpProxy::hostAndPort).toList());
        assertOneHolderAfterAFailoverThatAMisses(sentinelsOfA, this.group.uri(), () -> { }, false);
    }

    private void assertOneHolderAfterAFailoverThatAMisses(String sentinelsOfA, String sentinelsOfB, Runnable cutSentinelsOfA,
            boolean missed) {
        TcpProxy s2 = proxy(redis.node(2));
        TcpProxy s3 = proxy(redis.node(3));
        try (Redlock a = redlock(sentinelsOfA, redis.node(0).uri(), redis.node(1).uri(), "redis://" + s2.hostAndPort(),
                "redis://" + s3.hostAndPort());
                Redlock b = redlock(sentinelsOfB, redis.node(0).uri(), redis.node(1).uri(), redis.node(2).uri(), redis.node(3).uri())) {
            String nodeOfA = a.nodeStatuses().keySet().iterator().next();
            String nodeOfB = b.nodeStatuses().keySet().iterator().next();
            awaitTrue(Duration.ofSeconds(20), () -> allUp(a) && allUp(b));
            RedisNode former = this.group.master();
            s2.silence();
            s3.silence();
            cutSentinelsOfA.run();
            RedisNode promoted = this.group.failover();
            // B follows, quarantines the promoted replica, and counts it.
            awaitTrue(Duration.ofSeconds(40), () -> b.nodeStatuses().get(nodeOfB).state() == NodeStatus.State.UP
                    && b.nodeStatuses().get(nodeOfB).servers().contains(promoted.hostAndPort()));
            try (NodeInspector deposed = new NodeInspector(List.of(former.uri()))) {
                assertThat(deposed.role(0)).as("the deposed master still answers as a master").isEqualTo("master");
            }
            if (missed) {
                assertThat(a.nodeStatuses().get(nodeOfA).servers()).as("A missed the failover").contains(former.hostAndPort());
            }
            Optional<RedlockLease> first = a.tryAcquire("k", MAX_TTL);
            Optional<RedlockLease> second = b.tryAcquire("k", MAX_TTL);
            boolean bothValid = first.isPresent() && second.isPresent() && first.get().isValid() && second.get().isValid();
            assertThat(bothValid).as("two valid leases of k at once: A's through the deposed master %s, B's through the promoted %s",
                    former.hostAndPort(), promoted.hostAndPort()).isFalse();
            assertThat(first).as("A, whose votes through G nobody confirms").isEmpty();
            assertThat(second).as("B").isPresent();
            if (missed) {
                NodeStatus status = a.nodeStatuses().get(nodeOfA);
                assertThat(status.state()).isEqualTo(NodeStatus.State.DOWN);
                assertThat(status.reason()).contains("no majority").contains("sentinels confirmed");
            }
            second.get().release();
        }
    }

    private static boolean allUp(Redlock redlock) {
        return redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP);
    }

    private TcpProxy proxy(RedisNode node) {
        TcpProxy proxy = TcpProxy.to(node);
        this.proxies.add(proxy);
        return proxy;
    }

    private String sentinelUri(List<String> sentinels) {
        return sentinels.stream().collect(Collectors.joining(",", "redis-sentinel://", "#" + this.group.masterName()));
    }

    private static Redlock redlock(String... nodes) {
        return Redlock.builder().nodes(nodes).nodeTimeout(Duration.ofMillis(300)).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO).build();
    }

}
