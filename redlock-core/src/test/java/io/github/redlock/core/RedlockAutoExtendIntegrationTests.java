package io.github.redlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Automatic extension (the watchdog) and the loss signal, on five real nodes.
 */
class RedlockAutoExtendIntegrationTests {

    private static final Duration SHORT_TTL = Duration.ofMillis(500);

    /**
     * The read and write leases' ttl: long beside the patient node timeout (a read or write extension is a script
     * that a busy machine may answer late), so that an extension a loaded machine delays does not lose them.
     */
    private static final Duration RW_TTL = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void autoExtensionKeepsAShortLeaseForWorkSixTimesLongerThenReleaseRemovesIt() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("report", SHORT_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> lost = lease.lost();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        int checks = 0;
        while (System.nanoTime() < end) {
            assertThat(this.nodes.get().values("redlock:report")).as("after %d checks", checks).containsOnly(lease.token());
            assertThat(lease.isValid()).isTrue();
            checks++;
            Thread.sleep(100);
        }
        assertThat(checks).isGreaterThan(10);
        assertThat(lost).isNotDone();
        assertThat(lease.release()).isTrue();
        this.nodes.get().awaitAbsent("redlock:report");
        Thread.sleep(SHORT_TTL.toMillis()); // no extension after the release brings it back
        assertThat(this.nodes.get().values("redlock:report")).containsOnlyNulls();
        assertThat(lost).isNotDone();
    }

    @Test
    void readLeasesAreExtendedToo() throws Exception {
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", RW_TTL).orElseThrow().autoExtend(Duration.ofMinutes(1));
        Thread.sleep(RW_TTL.toMillis() * 3 / 2); // waits out more than a ttl: only extensions can keep it
        assertThat(reader.isValid()).isTrue();
        assertThat(this.nodes.get().members(1, "redlock:doc\u00FFreaders")).containsExactly(reader.token());
        assertThat(reader.release()).isTrue();
    }

    @Test
    void writeLeasesAreExtendedToo() throws Exception {
        RedlockLease writer = this.redlock.get().tryAcquireWrite("doc", RW_TTL, Duration.ofSeconds(1)).orElseThrow()
                .autoExtend(Duration.ofMinutes(1));
        Thread.sleep(RW_TTL.toMillis() * 3 / 2); // waits out more than a ttl: only extensions can keep it
        assertThat(writer.isValid()).isTrue();
        // A quorum, not every node: a node whose reader release lagged may rightly have refused the writer.
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:doc\u00FFwriter").stream()
                .filter(writer.token()::equals).count() >= this.redlock.get().quorum());
        assertThat(writer.release()).isTrue();
    }

    @Test
    void extensionStopsAtMaxHold() throws Exception {
        // A node timeout well within a quarter of the ttl, so that a loaded machine's slow answers are not
        // taken for failed extensions: the loss must be the maximum hold's, and only that.
        try (Redlock patient = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofMillis(200)).build()) {
            RedlockLease lease = patient.acquire("job", Duration.ofSeconds(1), Duration.ZERO).autoExtend(Duration.ofSeconds(2));
            CompletableFuture<Void> lost = lease.lost();
            Thread.sleep(1_500); // waits out more than a ttl: only extensions can keep it
            assertThat(lease.isValid()).isTrue();
            assertThat(this.nodes.get().values("redlock:job")).containsOnly(lease.token());
            lost.get(10, TimeUnit.SECONDS);
            this.nodes.get().awaitAbsent("redlock:job"); // the nodes let it expire: held for at most maxHold
            assertThat(lease.release()).isFalse();
        }
    }

    @Test
    void leaseIsLostOnceItsMaxHoldIsReached() throws Exception {
        // A node timeout well within a quarter of the ttl, so that a loaded machine's slow answers are not
        // taken for failed extensions: the loss must be the maximum hold's, and only that.
        try (Redlock patient = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofMillis(500)).build()) {
            long start = System.nanoTime();
            // A ttl of 2 s: each extension has a second to get through, even on a loaded machine.
            RedlockLease lease = patient.acquire("job", Duration.ofSeconds(2), Duration.ZERO).autoExtend(Duration.ofSeconds(3));
            CompletableFuture<Void> lost = lease.lost();
            lost.get(10, TimeUnit.SECONDS);
            long lostAfter = TestSupport.millisSince(start);
            assertThat(lostAfter).as("lost after %d ms", lostAfter).isGreaterThanOrEqualTo(2_900);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("maximum hold"));
        }
    }

    @Test
    void allNodesFrozenPastValidityRaiseTheLossSignal() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("frozen", SHORT_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> lost = lease.lost();
        long start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            redis.node(i).pause();
        }
        try {
            lost.get(10, TimeUnit.SECONDS);
            long lostAfter = TestSupport.millisSince(start);
            assertThat(lostAfter).as("lost after %d ms", lostAfter).isLessThan(5_000);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("no quorum"));
        }
        finally {
            for (int i = 0; i < 5; i++) {
                redis.node(i).resume();
            }
        }
        assertThat(lease.extend(SHORT_TTL)).isFalse(); // lost for good
    }

    @Test
    void aLeaseTakenByAnotherClientIsLostAtTheNextExtension() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("taken", SHORT_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> lost = lease.lost();
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:taken", "someone-else", Duration.ofSeconds(30));
        }
        lost.get(5, TimeUnit.SECONDS);
        assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("majority"));
        assertThat(lease.isValid()).isFalse();
        assertThat(this.nodes.get().get(0, "redlock:taken")).isEqualTo("someone-else");
    }

    @Test
    void lostCompletesWhenTheValidityOfALeaseWithoutExtensionRunsOut() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("short", Duration.ofMillis(200), Duration.ZERO);
        lease.lost().get(5, TimeUnit.SECONDS);
        assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("ran out"));

        RedlockLease released = this.redlock.get().acquire("short2", Duration.ofMillis(200), Duration.ZERO);
        CompletableFuture<Void> notLost = released.lost();
        released.release();
        Thread.sleep(400);
        assertThat(notLost).isNotDone();
        assertThat(released.lostReason()).isEmpty();
    }

    @Test
    void autoExtendAfterLostRunsOneChainOfExtensions() throws Exception {
        AtomicInteger extensions = new AtomicInteger();
        try (Redlock observed = TestSupport.patientBuilder().nodes(redis.uris()).observer(new RedlockObserver() {
            @Override
            public void extended(boolean extended, long nanos) {
                extensions.incrementAndGet();
            }
        }).build()) {
            RedlockLease lease = observed.acquire("chain", SHORT_TTL, Duration.ZERO);
            CompletableFuture<Void> lost = lease.lost(); // arms the validity watch first
            lease.autoExtend(Duration.ofMinutes(1));
            Thread.sleep(2_000);
            assertThat(lease.isValid()).isTrue();
            assertThat(lost).isNotDone();
            // One extension each time half the ttl remains: about 8 in 2 s; two chains would make about 16.
            assertThat(extensions.get()).isBetween(3, 12);
            lease.release();
        }
    }

    @Test
    void closingTheRedlockStopsExtension() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("closing", SHORT_TTL, Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        this.redlock.get().close();
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:closing").stream().allMatch((value) -> value == null));
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void autoExtendCalledAgainMovesTheMaxHoldLaterButNeverSooner() throws Exception {
        try (Redlock patient = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofMillis(500)).build()) {
            long start = System.nanoTime();
            // A ttl of 3 s: each extension has a second and a half to get through, even on a loaded machine.
            RedlockLease lease = patient.acquire("job", Duration.ofSeconds(3), Duration.ZERO).autoExtend(Duration.ofSeconds(3));
            CompletableFuture<Void> lost = lease.lost();
            assertThat(lease.autoExtend(Duration.ofMillis(1_500))).as("a sooner end changes nothing").isSameAs(lease);
            Thread.sleep(2_100); // the first maximum hold is reached: the lease now only runs out
            lease.autoExtend(Duration.ofSeconds(9));
            Thread.sleep(5_400); // past the first maximum hold and its ttl: only a resumed extension keeps it
            assertThat(lease.isValid()).as("valid %d ms after the acquisition", TestSupport.millisSince(start)).isTrue();
            assertThat(this.nodes.get().values("redlock:job")).containsOnly(lease.token());
            lost.get(15, TimeUnit.SECONDS);
            long lostAfter = TestSupport.millisSince(start);
            assertThat(lostAfter).as("lost after %d ms", lostAfter).isGreaterThanOrEqualTo(8_800);
            assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("maximum hold of PT9S"));
        }
    }

    @Test
    void badAutoExtendCallsAreRefusedClearly() {
        RedlockLease lease = this.redlock.get().acquire("args", SHORT_TTL, Duration.ZERO);
        assertThatIllegalArgumentException().isThrownBy(() -> lease.autoExtend(null)).withMessageContaining("maxHold");
        assertThatIllegalArgumentException().isThrownBy(() -> lease.autoExtend(Duration.ZERO)).withMessageContaining("maxHold");
        lease.release();
        RedlockLease released = this.redlock.get().acquire("args2", SHORT_TTL, Duration.ZERO);
        released.release();
        assertThatIllegalStateException().isThrownBy(() -> released.autoExtend(Duration.ofSeconds(5)))
                .withMessageContaining("released");
    }

}
