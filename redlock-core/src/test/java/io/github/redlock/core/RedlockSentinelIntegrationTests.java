package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import io.github.redlock.test.RedisSentinelGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel group as one of three nodes (two standalone masters beside it), on real processes: a master, a replica
 * and three sentinels. The hazard of a failover: the replica that the sentinels promote may lack the key of a lock
 * held through the former master (replication is asynchronous), so a second client could take the lock through it
 * while the first lease is valid. A promoted replica is therefore quarantined like a restarted server, for a whole
 * quarantine from the moment it is seen (its uptime says nothing of when it became the master).
 */
class RedlockSentinelIntegrationTests {

    /** Long enough for the lease to outlive the failover (the sentinels wait 2 s before they call the master down). */
    private static final Duration MAX_TTL = Duration.ofSeconds(15);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(2);

    private RedisSentinelGroup group;

    @BeforeEach
    void startGroup() {
        this.group = RedisSentinelGroup.start();
    }

    @AfterEach
    void stopGroup() {
        this.group.close();
    }

    @Test
    void aSentinelNodeVotesBesideStandaloneMasters() {
        try (Redlock redlock = redlock(RestartQuarantine.AUTO); Redlock other = redlock(RestartQuarantine.AUTO)) {
            String name = "redlock@" + String.join(",", this.group.sentinels().stream().map(RedisNode::hostAndPort).toList());
            assertThat(redlock.nodeStatuses()).containsKey(name);
            assertThat(redlock.nodeStatuses().get(name).state()).isEqualTo(NodeStatus.State.UP);
            assertThat(redlock.nodeStatuses().get(name).servers()).as("the master that answers").containsExactly(this.group.master().hostAndPort());
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO);
            try (NodeInspector master = new NodeInspector(List.of(this.group.master().uri()))) {
                // acquire returns with a quorum: the group's SET may still be on its way.
                awaitTrue(Duration.ofSeconds(5), () -> lease.token().equals(master.get(0, "redlock:k")));
            }
            redis.node(0).cutOff(); // the sentinel node's vote is needed for a quorum now
            try {
                assertThat(other.tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
                assertThat(lease.release()).isTrue();
                assertThat(other.tryAcquire("k", Duration.ofSeconds(10))).hasValueSatisfying((second) -> assertThat(second.release()).isTrue());
            }
            finally {
                redis.node(0).heal();
            }
        }
    }

    /** Fails with the quarantine counted from the promoted replica's start: it has run for longer than a quarantine. */
    @Test
    void aReplicaPromotedWithoutTheKeyOfAHeldLockDoesNotVoteForASecondClient() {
        awaitReplicaUpFor(MAX_TTL.plusSeconds(3)); // the old rule would let it vote at once
        try (Redlock first = redlock(RestartQuarantine.AUTO)) {
            RedlockLease held = holdThenFailOverToAReplicaWithoutTheKey(first);
            try (Redlock second = redlock(RestartQuarantine.AUTO)) {
                NodeStatus status = second.nodeStatuses().get(sentinelNodeName());
                assertThat(status.state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(status.reason()).contains("promoted from a replica by a failover");
                assertThat(status.quarantinedFor()).isGreaterThan(MAX_TTL.minusSeconds(2));
                assertThat(second.tryAcquire("k", MAX_TTL)).isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
            }
            // The first client saw the master's run_id change under it: it does not let the new master vote either.
            awaitTrue(Duration.ofSeconds(20), () -> first.nodeStatuses().get(sentinelNodeName()).state() == NodeStatus.State.QUARANTINED);
            assertThat(first.nodeStatuses().get(sentinelNodeName()).reason()).contains("promoted from a replica");
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
     * A promoted replica that restarts during its quarantine, from its own append-only log: it no longer says that it was
     * promoted ({@code second_repl_offset:-1}), it logs every write, and it holds the marker of kept data that it received
     * from its former master by replication. That marker names the former master's process, not the one that ran on the
     * node just before (the promoted replica's, recorded once it was seen): it proves nothing, and the node stays
     * quarantined for a third client while the first lease is valid. (Fails where a marker of any other process counts
     * as proof: the node then votes at once, and the third client takes the lock.)
     */
    @Test
    void aPromotedReplicaThatRestartsFromItsOwnLogDuringItsQuarantineStaysQuarantined() {
        String marker = "redlock:\u00ffkept-since";
        for (RedisNode server : this.group.servers()) {
            ServerCommands.call(server, "CONFIG", "SET", "appendonly", "yes");
            ServerCommands.call(server, "CONFIG", "SET", "appendfsync", "always");
        }
        try (Redlock first = redlock(RestartQuarantine.AUTO);
                NodeInspector servers = new NodeInspector(List.of(this.group.master().uri(), this.group.replicas().get(0).uri()))) {
            String masterRunId = runId(servers.info(0, "server"));
            String masterMarker = masterRunId + "@" + this.group.master().hostAndPort();
            awaitTrue(Duration.ofSeconds(10), () -> masterMarker.equals(servers.get(1, marker)));
            RedlockLease held = holdThenFailOverToAReplicaWithoutTheKey(first);
            RedisNode promoted = this.group.master();
            try (Redlock second = redlock(RestartQuarantine.AUTO)) {
                // The promoted replica is seen and quarantined, and its process recorded, by both clients.
                assertThat(second.nodeStatuses().get(sentinelNodeName()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                awaitTrue(Duration.ofSeconds(20), () -> first.nodeStatuses().get(sentinelNodeName()).state() == NodeStatus.State.QUARANTINED);
            }
            promoted.restartKeepingData("--appendonly", "yes", "--appendfsync", "always", "--replicaof", "no", "one");
            String info = servers.info(1, "replication");
            assertThat(info).as("it no longer says it was promoted").contains("second_repl_offset:-1").contains("role:master");
            assertThat(servers.get(1, marker)).as("the marker it received by replication").isEqualTo(masterMarker);
            try (Redlock third = redlock(RestartQuarantine.AUTO)) {
                NodeStatus status = third.nodeStatuses().get(sentinelNodeName());
                assertThat(status.state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(status.reason()).contains("its marker names " + masterMarker);
                assertThat(third.tryAcquire("k", MAX_TTL)).isEmpty();
                assertThat(held.isValid()).as("the first lease was still valid at the refused attempt").isTrue();
            }
        }
    }

    /**
     * After {@code SENTINEL FAILOVER} the former master still runs, and answers as a master until the sentinels turn it
     * into a replica, at least 8 s later: a client that stays connected to it meanwhile writes where the new master
     * never hears of it. The client drops it as the sentinels announce the failover, and checks the new master.
     */
    @Test
    void aConnectedClientFollowsAFailoverAsTheSentinelsAnnounceItWhileTheFormerMasterStillRuns() {
        try (Redlock redlock = redlock(RestartQuarantine.AUTO)) {
            // A group just started may not be settled at the client's first check on a loaded machine: it votes once it is.
            awaitTrue(Duration.ofSeconds(30), () -> redlock.nodeStatuses().get(sentinelNodeName()).state() == NodeStatus.State.UP);
            RedisNode former = this.group.master();
            this.group.failover();
            awaitTrue(Duration.ofSeconds(20), () -> redlock.nodeStatuses().get(sentinelNodeName()).state() == NodeStatus.State.QUARANTINED);
            try (NodeInspector inspector = new NodeInspector(List.of(former.uri()))) {
                assertThat(inspector.role(0)).as("the former master is not a replica yet").isEqualTo("master");
            }
            assertThat(redlock.nodeStatuses().get(sentinelNodeName()).reason()).contains("promoted from a replica");
            assertThat(redlock.nodeStatuses().get(sentinelNodeName()).servers()).as("the master that answers now")
                    .containsExactly(this.group.master().hostAndPort()).doesNotContain(former.hostAndPort());
        }
    }

    /**
     * Holds {@code k} through node 0 and the group's master only (node 1 holds another client's key for 1.2 s), with a
     * replica that hears nothing of it: paused, and its link to the master cut, before the acquisition. Then the master
     * crashes, the replica resumes and the sentinels promote it, without the key.
     */
    private RedlockLease holdThenFailOverToAReplicaWithoutTheKey(Redlock first) {
        RedisNode master = this.group.master();
        RedisNode replica = this.group.replicas().get(0);
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
                master.kill();
            }
            finally {
                replica.resume();
            }
            RedisNode promoted = this.group.awaitFailover(master);
            assertThat(promoted).isSameAs(replica);
            assertThat(servers.get(1, "redlock:k")).as("the promoted replica lacks the held lock's key").isNull();
            awaitTrue(Duration.ofSeconds(5), () -> standalone.get(1, "redlock:k") == null);
            return held;
        }
    }

    private void awaitReplicaUpFor(Duration uptime) {
        RedisNode replica = this.group.replicas().get(0);
        try (NodeInspector inspector = new NodeInspector(List.of(replica.uri()))) {
            Poll.until(uptime.plusSeconds(30), () -> uptimeSeconds(inspector.info(0, "server")) >= uptime.toSeconds(),
                    () -> "the replica was not up for " + uptime);
        }
    }

    private static String runId(String info) {
        return info.lines().filter((line) -> line.startsWith("run_id:")).map((line) -> line.substring(7).trim()).findFirst().orElseThrow();
    }

    private static long uptimeSeconds(String info) {
        return info.lines().filter((line) -> line.startsWith("uptime_in_seconds:")).mapToLong((line) -> Long.parseLong(line.substring(18).trim()))
                .findFirst().orElse(0);
    }

    private String sentinelNodeName() {
        return "redlock@" + String.join(",", this.group.sentinels().stream().map(RedisNode::hostAndPort).toList());
    }

    private Redlock redlock(RestartQuarantine quarantine) {
        return TestSupport.patientBuilder().nodes(redis.node(0).uri(), redis.node(1).uri(), this.group.uri()).maxTtl(MAX_TTL)
                .restartQuarantine(quarantine).build();
    }

}
