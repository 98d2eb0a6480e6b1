package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Long leases through rolling restarts, on five real nodes. The hazard: a leader's lease, extended automatically, is
 * never written again once granted, so that each node restarted empty drops out of it for good; when the third of five
 * has restarted, no extension reaches a quorum and the leader loses its lease, although every node is up. A node that
 * restarted since it held the token, and votes again after its quarantine, gets the token written back by the next
 * extension (a repair), and counts again.
 */
class RedlockLeaseRepairIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(3);

    private static final String NO_REPAIRS = "redlock.internal.no-lease-repairs";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.nodes = new NodeInspector(redis.uris());
    }

    @AfterEach
    void tearDown() {
        this.nodes.close();
        System.clearProperty(NO_REPAIRS);
    }

    @Test
    void aLeaderKeepsItsLeaseWhileEveryNodeRestartsEmptyOneAfterAnother() throws Exception {
        List<String> repairs = new java.util.concurrent.CopyOnWriteArrayList<>();
        RedlockObserver counting = new RedlockObserver() {
            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                if (command.equals("repair")) {
                    repairs.add(node + " " + outcome);
                }
            }
        };
        try (Redlock first = builder().observer(counting).build(); Redlock second = redlock()) {
            // Granted by all five: a node quarantined at the grant (restarted by another test) holds nothing to repair.
            awaitTrue(Duration.ofSeconds(30), () -> first.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            RedlockLease leader = first.acquire("leader", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            int[] contenderAttempts = new int[1];
            try (Contender contender = new Contender(second)) {
                for (int i = 0; i < 5; i++) {
                    restartAndAwaitVoting(first, i);
                    int node = i;
                    // The next extension writes the token there again (extensions come about every ttl / 2).
                    awaitTrue(Duration.ofSeconds(10), () -> leader.token().equals(this.nodes.get(node, "redlock:leader")));
                    assertThat(leader.lost()).as("the leader's lease after the restart of node %d", i).isNotDone();
                    assertThat(leader.isValid()).isTrue();
                }
                assertThat(contender.grants()).as("grants to a second client while the leader held the lease").isZero();
                assertThat(contender.attempts()).as("attempts of the second client").isGreaterThan(10);
                contenderAttempts[0] = contender.attempts();
            }
            for (int i = 0; i < 5; i++) {
                assertThat(this.nodes.get(i, "redlock:leader")).as("the leader's token on node %d", i).isEqualTo(leader.token());
            }
            // A repair per restart, counted on the node-command meter (a repair a restarted node refused would be retried).
            assertThat(repairs.stream().filter((repair) -> repair.endsWith(" ok")).map((repair) -> repair.split(" ")[0]).distinct())
                    .as("nodes repaired (%s)", repairs).hasSize(5);
            System.out.println("rolling restarts: 5, repairs: " + repairs + ", second-client attempts: " + contenderAttempts[0] + ", grants: 0");
            assertThat(leader.release()).isTrue();
        }
    }

    @Test
    void withoutRepairsTheLeaderLosesItsLeaseAtTheThirdRestart() throws Exception {
        System.setProperty(NO_REPAIRS, "true");
        try (Redlock first = redlock()) {
            System.clearProperty(NO_REPAIRS);
            RedlockLease leader = first.acquire("leader", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            for (int i = 0; i < 2; i++) {
                restartAndAwaitVoting(first, i);
                Thread.sleep(MAX_TTL.toMillis()); // two extensions at least: the lease stands on the other three
                assertThat(leader.lost()).as("the leader's lease after the restart of node %d", i).isNotDone();
            }
            redis.node(2).restart();
            awaitTrue(Duration.ofSeconds(10), () -> leader.lost().isDone());
            assertThat(leader.lostReason()).isPresent();
            assertThat(this.nodes.get(0, "redlock:leader")).as("the token on the first restarted node").isNull();
        }
    }

    /** Restarts the node empty, then waits until the client counts it again (its quarantine is over). */
    private static void restartAndAwaitVoting(Redlock client, int node) {
        redis.node(node).restart();
        String name = redis.node(node).hostAndPort();
        awaitTrue(Duration.ofSeconds(10), () -> client.nodeStatuses().get(name).state() == NodeStatus.State.QUARANTINED);
        awaitTrue(Duration.ofSeconds(30), () -> client.nodeStatuses().get(name).state() == NodeStatus.State.UP);
    }

    private static Redlock redlock() {
        return builder().build();
    }

    private static Redlock.Builder builder() {
        return TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO);
    }

    /** A second client that tries to take the leader's lock every 50 ms, and lets go of any grant at once. */
    private static final class Contender implements AutoCloseable {

        private final AtomicBoolean running = new AtomicBoolean(true);

        private final AtomicInteger attempts = new AtomicInteger();

        private final List<String> grants = new ArrayList<>();

        private final Thread thread;

        Contender(Redlock client) {
            this.thread = new Thread(() -> {
                while (this.running.get()) {
                    this.attempts.incrementAndGet();
                    client.tryAcquire("leader", MAX_TTL).ifPresent((lease) -> {
                        synchronized (this.grants) {
                            this.grants.add(lease.token());
                        }
                        lease.release();
                    });
                    try {
                        Thread.sleep(50);
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                }
            }, "contender");
            this.thread.start();
        }

        int attempts() {
            return this.attempts.get();
        }

        int grants() {
            synchronized (this.grants) {
                return this.grants.size();
            }
        }

        @Override
        public void close() {
            this.running.set(false);
            try {
                this.thread.join(10_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

    }

}
