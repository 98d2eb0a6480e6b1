package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read and write leases through rolling restarts, on three real nodes (quorum 2): a write lease and a read lease,
 * extended automatically, while two of the three nodes restart empty one after another. Without repairs each restarted
 * node drops out of both leases for good, and the second restart leaves them on one node: both are lost. With them, the
 * next extension writes the writer's key and the reader's entry back on each restarted node once it votes again, and a
 * second client gets neither the write lock nor, while the reader holds, a write lock of the read one.
 */
class RedlockReadWriteLeaseRepairIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(2);

    private static final String NO_REPAIRS = "redlock.internal.no-lease-repairs";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

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
    void aWriteLeaseAndAReadLeaseKeepTheirLocksWhileTwoOfThreeNodesRestartEmptyOneAfterAnother() {
        try (Redlock first = builder().build(); Redlock second = builder().build()) {
            awaitTrue(Duration.ofSeconds(30), () -> first.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            RedlockLease writer = first.acquireWrite("report", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            RedlockLease reader = first.acquireRead("prices", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            // Each lease on all three nodes, and counted on them by an extension since: a grant that answered after the node
            // timeout on a loaded machine still wrote its entry, which the lease counts (and repairs) only from an extension
            // on. A lease counted on two nodes only cannot stand through the restart of one of them: nothing else holds it.
            awaitTrue(Duration.ofSeconds(10), () -> java.util.stream.IntStream.range(0, 3).allMatch((node) ->
                    writer.token().equals(this.nodes.get(node, "redlock:report\u00FFwriter"))
                            && this.nodes.members(node, "redlock:prices\u00FFreaders").contains(reader.token())));
            awaitExtension(writer);
            awaitExtension(reader);
            int writersRepaired = 0;
            int readersRepaired = 0;
            for (int i = 0; i < 2; i++) {
                int node = i;
                // A node is repaired only where the lease counted it: a quorum granted each lease, and on a loaded machine a
                // third node's grant may have answered too late to count (it then holds nothing of the lease, rightly).
                restartAndAwaitVoting(first, i);
                if (eventually(Duration.ofSeconds(10), () -> writer.token().equals(this.nodes.get(node, "redlock:report\u00FFwriter")))) {
                    writersRepaired++;
                }
                if (eventually(Duration.ofSeconds(10),
                        () -> this.nodes.members(node, "redlock:prices\u00FFreaders").contains(reader.token()))) {
                    readersRepaired++;
                }
                assertThat(writer.lost()).as("the write lease after the restart of node %d", i).isNotDone();
                assertThat(reader.lost()).as("the read lease after the restart of node %d", i).isNotDone();
            }
            // Each lease stood on two of the three nodes at least, so at least one of the two restarted nodes counted in it.
            assertThat(writersRepaired).as("writer's keys written back").isPositive();
            assertThat(readersRepaired).as("reader's entries written back").isPositive();
            assertThat(second.tryAcquireWrite("report", MAX_TTL)).as("a second writer of the written lock").isEmpty();
            assertThat(second.tryAcquireRead("report", MAX_TTL)).as("a reader of the written lock").isEmpty();
            assertThat(second.tryAcquireWrite("prices", MAX_TTL)).as("a writer of the read lock").isEmpty();
            assertThat(writer.isValid()).isTrue();
            assertThat(reader.isValid()).isTrue();
            assertThat(writer.release()).isTrue();
            assertThat(reader.release()).isTrue();
        }
    }

    @Test
    void withoutRepairsBothLeasesAreLostAtTheSecondRestart() {
        System.setProperty(NO_REPAIRS, "true");
        try (Redlock first = builder().build()) {
            System.clearProperty(NO_REPAIRS);
            awaitTrue(Duration.ofSeconds(30), () -> first.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            RedlockLease writer = first.acquireWrite("report", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            RedlockLease reader = first.acquireRead("prices", MAX_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(10));
            restartAndAwaitVoting(first, 0);
            assertThat(writer.lost()).as("after one restart the leases stand on the other two").isNotDone();
            assertThat(reader.lost()).isNotDone();
            redis.node(1).restart();
            awaitTrue(Duration.ofSeconds(10), () -> writer.lost().isDone() && reader.lost().isDone());
            assertThat(this.nodes.get(0, "redlock:report\u00FFwriter")).as("the writer's key on the first restarted node").isNull();
        }
    }

    /** Restarts the node empty, then waits until the client counts it again (its quarantine is over). */
    private static void restartAndAwaitVoting(Redlock client, int node) {
        redis.node(node).restart();
        String name = redis.node(node).hostAndPort();
        awaitTrue(Duration.ofSeconds(10), () -> client.nodeStatuses().get(name).state() == NodeStatus.State.QUARANTINED);
        awaitTrue(Duration.ofSeconds(30), () -> client.nodeStatuses().get(name).state() == NodeStatus.State.UP);
    }

    /**
     * Waits until the lease was extended once more: its validity rises 100 ms or more above what would be left of it
     * without an extension (an automatic one adds about half its ttl, 1 s).
     */
    private static void awaitExtension(RedlockLease lease) {
        long before = lease.remainingValidity().toNanos();
        long since = System.nanoTime();
        long margin = Duration.ofMillis(100).toNanos();
        awaitTrue(Duration.ofSeconds(10), () -> lease.remainingValidity().toNanos() > before - (System.nanoTime() - since) + margin);
    }

    /** Whether the condition holds within the bound, polled every 50 ms. */
    private static boolean eventually(Duration bound, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }

    private static Redlock.Builder builder() {
        return TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO);
    }

}
