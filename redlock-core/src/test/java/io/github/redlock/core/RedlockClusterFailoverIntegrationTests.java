package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failover inside a Redis Cluster node, on real processes (three masters, a replica each, beside two standalone
 * masters). The hazard: the replica that takes over a shard may lack the key of a lock held through its former master
 * (replication is asynchronous), so a second client could take the lock through it while the first lease is valid. A
 * cluster whose master was replaced is therefore quarantined like a restarted server, for a whole quarantine from the
 * moment the new master is seen.
 */
class RedlockClusterFailoverIntegrationTests {

    /** Long enough for the lease to outlive the failover (the cluster waits 2 s before it fails a master over). */
    private static final Duration MAX_TTL = Duration.ofSeconds(15);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(2);

    private RedisCluster cluster;

    @BeforeEach
    void startCluster() {
        this.cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stopCluster() {
        this.cluster.close();
    }

    /** Fails without the failover's quarantine: the promoted replica grants the second client the held lock. */
    @Test
    void aReplicaPromotedWithoutTheKeyOfAHeldLockDoesNotVoteForASecondClient() {
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            RedlockLease held = holdThenFailOverToAReplicaWithoutTheKey(first);
            try (Redlock second = redlock(RestartQuarantine.AUTO)) {
                NodeStatus status = second.nodeStatuses().get(clusterNodeName());
                assertThat(status.state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(status.reason()).contains("promoted from a replica by a failover");
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
            }
            // The first client saw a master of the cluster replaced under it: it does not let the new one vote either.
            awaitTrue(Duration.ofSeconds(20), () -> first.nodeStatuses().get(clusterNodeName()).state() == NodeStatus.State.QUARANTINED);
            assertThat(first.nodeStatuses().get(clusterNodeName()).reason()).contains("promoted from a replica");
        }
    }

    /** The control of the test above: without the quarantine the second client takes the lock that the first holds. */
    @Test
    void withoutTheQuarantineASecondClientTakesTheHeldLockThroughThePromotedReplica() {
        try (Redlock first = redlock(RestartQuarantine.NEVER)) {
            RedlockLease held = holdThenFailOverToAReplicaWithoutTheKey(first);
            try (Redlock second = redlock(RestartQuarantine.NEVER)) {
                Optional<RedlockLease> secondGrant = second.tryAcquire("k", MAX_TTL);
                assertThat(secondGrant).as("the hazard: a second grant").isPresent();
                assertThat(held.isValid()).as("while the first lease is valid").isTrue();
                secondGrant.get().release();
            }
        }
    }

    /**
     * A graceful failover ({@code CLUSTER FAILOVER FORCE}) while the client stays connected to the former master, which
     * becomes a replica and answers the lock's writes with {@code MOVED}: the client reads the cluster's view again,
     * and checks the new master before it votes (it does not follow the redirection to an unchecked server).
     */
    @Test
    void aConnectedClientFollowsAFailoverAndChecksTheNewMasterBeforeItVotes() {
        try (Redlock redlock = redlock(RestartQuarantine.AUTO)) {
            assertThat(redlock.nodeStatuses().get(clusterNodeName()).state()).isEqualTo(NodeStatus.State.UP);
            RedisNode former = this.cluster.masterOf("redlock:k");
            this.cluster.failover(former);
            redlock.tryAcquire("k", MAX_TTL).ifPresent(RedlockLease::release); // a write to the former master: MOVED
            awaitTrue(Duration.ofSeconds(20), () -> redlock.nodeStatuses().get(clusterNodeName()).state() == NodeStatus.State.QUARANTINED);
            assertThat(redlock.nodeStatuses().get(clusterNodeName()).reason()).contains("promoted from a replica");
        }
    }

    /**
     * Holds {@code k} through node 0 and the cluster's master of its slot only (node 1 holds another client's key for
     * 1.2 s), with a replica that hears nothing of it: paused, and its link to the master cut, before the acquisition.
     * Then the master crashes, the replica resumes and the cluster promotes it, without the key.
     */
    private RedlockLease holdThenFailOverToAReplicaWithoutTheKey(Redlock first) {
        RedisNode master = this.cluster.masterOf("redlock:k");
        RedisNode replica = this.cluster.replicasOf(master).get(0);
        try (NodeInspector standalone = new NodeInspector(redis.uris());
                NodeInspector servers = new NodeInspector(List.of(master.uri(), replica.uri()))) {
            standalone.set(1, "redlock:k", "another-client", Duration.ofMillis(1200));
            replica.pause();
            RedlockLease held;
            try {
                servers.dropReplicas(0);
                held = first.acquire("k", MAX_TTL, Duration.ZERO);
                RedlockLease lease = held;
                awaitTrue(Duration.ofSeconds(5), () -> lease.token().equals(servers.get(0, "redlock:k")));
                this.cluster.kill(master);
            }
            finally {
                replica.resume();
            }
            RedisNode promoted = this.cluster.awaitFailover(master);
            assertThat(promoted).isSameAs(replica);
            assertThat(servers.get(1, "redlock:k")).as("the promoted replica lacks the held lock's key").isNull();
            awaitTrue(Duration.ofSeconds(5), () -> standalone.get(1, "redlock:k") == null);
            return held;
        }
    }

    private String clusterNodeName() {
        return "cluster@" + String.join(",", this.cluster.nodes().stream().map(RedisNode::hostAndPort).toList());
    }

    private Redlock redlock(RestartQuarantine quarantine) {
        return TestSupport.patientBuilder().nodes(redis.node(0).uri(), redis.node(1).uri(), this.cluster.uri()).maxTtl(MAX_TTL)
                .restartQuarantine(quarantine).build();
    }

}
