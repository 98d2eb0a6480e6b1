package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Redlock tells an observer and its callers about itself: node commands, releases, extensions,
 * held leases and node connections.
 */
class RedlockObservationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @Test
    void observerSeesEveryNodeCommandWithItsOutcome() {
        List<String> events = observeOneLockWithNode2Down();
        String down = redis.node(2).hostAndPort();
        assertThat(events).contains("set ok " + redis.node(0).hostAndPort(), "set ok " + redis.node(1).hostAndPort(),
                "set rejected " + down, "extend ok " + redis.node(0).hostAndPort(), "extend ok " + redis.node(1).hostAndPort(),
                "release ok " + redis.node(0).hostAndPort(), "release ok " + redis.node(1).hostAndPort());
        // The SET never reached the down node, so neither extend nor release is sent there.
        assertThat(events).filteredOn((event) -> event.endsWith(down)).containsExactly("set rejected " + down);
    }

    @Test
    void observerSeesEachExtension() {
        assertThat(observeOneLockWithNode2Down()).contains("extended true");
    }

    @Test
    void observerSeesEachRelease() {
        assertThat(observeOneLockWithNode2Down()).contains("released true");
    }

    /** Takes, extends and releases one lock with node 2 down, and returns the observer's nine events. */
    private List<String> observeOneLockWithNode2Down() {
        List<String> events = new CopyOnWriteArrayList<>();
        RedlockObserver observer = new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                assertThat(nanos).isPositive();
                events.add(command + " " + outcome + " " + node);
            }

            @Override
            public void released(boolean released, long nanos) {
                events.add("released " + released);
            }

            @Override
            public void extended(boolean extended, long nanos) {
                events.add("extended " + extended);
            }

        };
        redis.node(2).kill();
        // Not a timing test: a roomy node timeout, so that a slow first command on a loaded machine is no "timeout". No
        // restart quarantine: with one node of three down, a new client reads one other node of the two the check needs,
        // and admits only nodes that have run for a quarantine, which these fresh ones have not.
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).restartQuarantine(RestartQuarantine.NEVER).observer(observer).build()) {
            RedlockLease lease = redlock.acquire("k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
            assertThat(lease.release()).isTrue();
            awaitTrue(Duration.ofSeconds(5), () -> events.size() == 9);
        }
        return events;
    }

    @Test
    void observerHearsOfEachLostLeaseOnceWithItsReasonButNotOfReleasedOnes() throws Exception {
        List<String> lost = new CopyOnWriteArrayList<>();
        RedlockObserver observer = new RedlockObserver() {

            @Override
            public void leaseLost(RedlockLease lease, String reason) {
                lost.add(lease.key() + ": " + reason + " / " + lease.lostReason().orElse("none"));
            }

        };
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observer(observer).build()) {
            RedlockLease expiring = redlock.acquire("expiring", Duration.ofMillis(200), Duration.ZERO);
            expiring.lost().get(5, java.util.concurrent.TimeUnit.SECONDS);
            redlock.acquire("released", Duration.ofMillis(200), Duration.ZERO).release();
            RedlockLease closed = redlock.acquire("closed", Duration.ofSeconds(30), Duration.ZERO);
            redlock.close();
            awaitTrue(Duration.ofSeconds(5), () -> lost.size() == 2);
            assertThat(lost).hasSize(2);
            // In either order: the observer hears of a loss on the thread that marked it, which may come after lost()
            // completed and the test went on to close the lock (CI of stop 48, two loaded builds).
            assertThat(lost).filteredOn((event) -> event.startsWith("expiring: ")).singleElement().asString()
                    .startsWith("expiring: its validity ran out").endsWith(" / " + expiring.lostReason().orElseThrow());
            assertThat(lost).filteredOn((event) -> event.startsWith("closed: ")).singleElement().asString()
                    .startsWith("closed: its Redlock was closed");
            assertThat(closed.isValid()).isFalse();
        }
    }

    @Test
    void anObserverWhoseLeaseLostThrowsStillLetsTheLossSignalComplete() throws Exception {
        RedlockObserver throwing = new RedlockObserver() {

            @Override
            public void leaseLost(RedlockLease lease, String reason) {
                throw new IllegalStateException("observer failure");
            }

        };
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observer(throwing).build()) {
            RedlockLease lease = redlock.acquire("throwing", Duration.ofMillis(200), Duration.ZERO);
            lease.lost().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(redlock.acquire("throwing", Duration.ofSeconds(5), Duration.ofSeconds(5)).release()).isTrue();
        }
    }

    @Test
    void anObserverThatThrowsNeitherStallsDecisionsNorLeaksLocks() {
        RedlockObserver throwing = new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                throw new IllegalStateException("observer failure");
            }

            @Override
            public void released(boolean released, long nanos) {
                throw new IllegalStateException("observer failure");
            }

            @Override
            public void extended(boolean extended, long nanos) {
                throw new IllegalStateException("observer failure");
            }

        };
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(2)).observer(throwing).build();
                NodeInspector nodes = new NodeInspector(redis.uris())) {
            long start = System.nanoTime();
            RedlockLease lease = redlock.acquire("observed", Duration.ofSeconds(30), Duration.ZERO);
            assertThat(TestSupport.millisSince(start)).as("decided without waiting for the node timeout").isLessThan(1_500);
            assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
            nodes.awaitAbsent("redlock:observed");
            assertThat(redlock.tryAcquire("observed", Duration.ofSeconds(30))).hasValueSatisfying(RedlockLease::release);
        }
    }

    @Test
    void nodeConnectionsTellWhichNodesAreUp() {
        redis.node(1).kill();
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            assertThat(redlock.quorum()).isEqualTo(2);
            assertThat(redlock.nodeConnections()).containsEntry(redis.node(0).hostAndPort(), true)
                    .containsEntry(redis.node(1).hostAndPort(), false).containsEntry(redis.node(2).hostAndPort(), true);
        }
    }

    @Test
    void heldLeasesListsUnreleasedLeases() {
        redis.node(1).kill();
        // No restart quarantine: these fresh nodes, with one of three down, would wait one out (see above).
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).restartQuarantine(RestartQuarantine.NEVER).build()) {
            RedlockLease first = redlock.acquire("a", Duration.ofSeconds(10), Duration.ZERO);
            RedlockLease second = redlock.acquire("b", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(redlock.heldLeases()).containsExactlyInAnyOrder(first, second);
            assertThat(first.acquiredAt()).isBeforeOrEqualTo(second.acquiredAt());
            first.release();
            assertThat(redlock.heldLeases()).containsExactly(second);
            second.close();
            assertThat(redlock.heldLeases()).isEmpty();
        }
    }

}
