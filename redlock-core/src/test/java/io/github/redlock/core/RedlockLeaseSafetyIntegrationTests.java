package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease's promise on five real nodes: whenever {@link RedlockLease#isValid()} is true, a quorum of nodes
 * holds its token for at least {@link RedlockLease#remainingValidity()}; a lost or released lease says so;
 * and no lease outlives the caller that gave up on it.
 */
class RedlockLeaseSafetyIntegrationTests {

    private static final int ITERATIONS = TestSupport.SOAK ? 20_000 : 2_000;

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void extendingWithAShorterTtlNeverShortensTheKeys() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("shorter", Duration.ofSeconds(30), Duration.ZERO);
        lease.extend(Duration.ofMillis(2));
        Thread.sleep(50); // waits out the 2 ms that a shortened key would live
        assertBackedByAQuorum(lease, "redlock:shorter");
        assertThat(lease.isValid()).isTrue();
        assertThat(this.nodes.get().values("redlock:shorter")).containsOnly(lease.token());
    }

    @Test
    void anExtensionThatReachesOnlyAMinorityNeverRaisesTheValidityEvenWhenItIsAppliedLate() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("partial", Duration.ofSeconds(3), Duration.ZERO);
        Duration before;
        for (int i = 0; i < 3; i++) {
            redis.node(i).pause(); // frozen: the extension reaches nodes 3 and 4 only, and 0 to 2 apply it when resumed
        }
        try {
            before = lease.remainingValidity();
            assertThat(lease.extend(Duration.ofSeconds(30))).as("an extension two of five nodes answered").isFalse();
            assertThat(lease.remainingValidity()).as("validity after it").isLessThanOrEqualTo(before);
        }
        finally {
            for (int i = 0; i < 3; i++) {
                redis.node(i).resume();
            }
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < end) {
            assertBackedByAQuorum(lease, "redlock:partial");
        }
        assertThat(lease.remainingValidity()).as("validity once the late extensions were applied").isLessThanOrEqualTo(before);
    }

    @Test
    void manualExtensionsRacingTheAutoExtensionKeepTheLeaseBackedByAQuorum() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("racing", Duration.ofMillis(400), Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService extender = Executors.newSingleThreadExecutor();
        Future<?> extending = extender.submit(() -> {
            while (!stop.get()) {
                lease.extend(Duration.ofMillis(1 + ThreadLocalRandom.current().nextInt(800)));
            }
        });
        int validChecks = 0;
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500);
            while (System.nanoTime() < end) {
                if (assertBackedByAQuorum(lease, "redlock:racing")) {
                    validChecks++;
                }
            }
        }
        finally {
            stop.set(true);
            extending.get(10, TimeUnit.SECONDS);
            extender.shutdown();
        }
        assertThat(validChecks).as("checks while valid").isGreaterThan(20);
        assertThat(lease.release()).isTrue();
    }

    @Test
    void anExtensionRefusedByAMajorityLosesTheLease() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("refused", Duration.ofSeconds(30), Duration.ZERO);
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:refused", "someone-else", Duration.ofSeconds(30));
        }
        assertThat(lease.extend(Duration.ofSeconds(30))).isFalse();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remainingValidity()).isZero();
        lease.lost().get(1, TimeUnit.SECONDS);
        assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("majority"));
        assertThat(this.nodes.get().get(0, "redlock:refused")).isEqualTo("someone-else");
    }

    @Test
    void aLeaseLostByItsAutoExtensionHasNoRemainingValidity() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("taken", Duration.ofSeconds(2), Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> lost = lease.lost();
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:taken", "someone-else", Duration.ofSeconds(30));
        }
        lost.get(5, TimeUnit.SECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remainingValidity()).isZero();
        assertThat(lease.release()).isFalse();
        assertThat(this.nodes.get().values("redlock:taken")).containsOnly("someone-else", null);
    }

    @Test
    void autoExtensionUpToMaxHoldSendsABoundedNumberOfExtensions() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        Duration maxHold = Duration.ofSeconds(3);
        this.nodes.get().resetStats();
        long start = System.nanoTime();
        RedlockLease lease = this.redlock.get().acquire("bounded", ttl, Duration.ZERO).autoExtend(maxHold);
        lease.lost().get(10, TimeUnit.SECONDS);
        assertThat(TestSupport.millisSince(start)).isGreaterThanOrEqualTo(maxHold.toMillis() - 100);
        assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("maximum hold"));
        long bound = maxHold.toMillis() / (ttl.toMillis() / 3) + 2;
        for (long calls : this.nodes.get().scriptCalls()) {
            assertThat(calls).as("extensions on one node (bound %d)", bound).isBetween(3L, bound);
        }
    }

    @Test
    void asynchronousAcquisitionsCancelledAtAnyMomentLeaveNoKeyBehind() throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int acquiredAnyway = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            CompletableFuture<Optional<RedlockLease>> lease = this.redlock.get().tryAcquireAsync("cancel:" + i, Duration.ofMinutes(1),
                    Duration.ZERO);
            LockSupport.parkNanos(random.nextLong(600_000)); // around the time an uncontended acquisition takes
            if (!lease.cancel(false)) {
                Optional<RedlockLease> held = lease.get(5, TimeUnit.SECONDS);
                if (held.isPresent()) {
                    acquiredAnyway++;
                    held.get().release();
                }
            }
        }
        assertThat(acquiredAnyway).as("acquired before the cancel").isLessThan(ITERATIONS);
        assertNoKeysLeft("redlock:cancel:*");
    }

    @Test
    void interruptedWaitersOnAContendedKeyLeaveNoKeyBehind() throws Exception {
        ExecutorService waiters = Executors.newFixedThreadPool(4);
        try (Redlock holder = TestSupport.patientBuilder().nodes(redis.uris()).build();
                Redlock waiter = TestSupport.patientBuilder().nodes(redis.uris()).retryDelay(Duration.ofMillis(10)).build()) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int rounds = ITERATIONS / 10;
            for (int i = 0; i < rounds; i++) {
                String key = "contended:" + i;
                RedlockLease held = holder.acquire(key, Duration.ofMinutes(1), Duration.ofSeconds(5));
                List<Future<?>> waiting = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    CompletableFuture<Thread> started = new CompletableFuture<>();
                    waiting.add(waiters.submit(() -> {
                        started.complete(Thread.currentThread());
                        waiter.tryAcquire(key, Duration.ofMinutes(1), Duration.ofSeconds(5)).ifPresent(RedlockLease::release);
                        Thread.interrupted(); // clears a late interrupt before the pool reuses the thread
                    }));
                    threads.add(started.get(5, TimeUnit.SECONDS));
                }
                held.release(); // one waiter gets the key at its next retry...
                LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(20)));
                threads.forEach(Thread::interrupt); // ...while the others, and maybe that one, give up
                for (Future<?> done : waiting) {
                    done.get(30, TimeUnit.SECONDS);
                }
            }
        }
        finally {
            waiters.shutdownNow();
        }
        assertNoKeysLeft("redlock:contended:*");
    }

    @Test
    void closingTheRedlockWhileCallersWaitLeavesNoKeyOfTheirsBehind() throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<String> heldAtClose = new ArrayList<>();
        try (Redlock holder = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            for (int i = 0; i < ITERATIONS / 50; i++) {
                String key = "closing:" + i;
                RedlockLease held = holder.acquire(key, Duration.ofMinutes(1), Duration.ofSeconds(5));
                Redlock closing = TestSupport.patientBuilder().nodes(redis.uris()).retryDelay(Duration.ofMillis(10)).build();
                List<CompletableFuture<Optional<RedlockLease>>> waiting = new ArrayList<>();
                for (int w = 0; w < 3; w++) {
                    waiting.add(closing.tryAcquireAsync(key, Duration.ofMinutes(1), Duration.ofSeconds(30)));
                }
                LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(5)));
                held.release(); // the first waiter's next attempt gets the key...
                LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(2)));
                closing.close(); // ...maybe while it is under way
                for (CompletableFuture<Optional<RedlockLease>> caller : waiting) {
                    // Each caller learns the outcome at once (not after its 30 s wait): a lease it got before the
                    // close is its own (lost, expiring with its ttl); any other key would be an orphan.
                    Optional<RedlockLease> outcome = caller.handle((lease, failure) -> (lease != null) ? lease : Optional.<RedlockLease>empty())
                            .get(5, TimeUnit.SECONDS);
                    outcome.ifPresent((lease) -> heldAtClose.add("redlock:" + key + " = " + lease.token()));
                }
            }
        }
        List<String> orphans = new ArrayList<>(keysLeft("redlock:closing:*").stream()
                .map((left) -> left.substring(left.indexOf(':') + 2, left.lastIndexOf(','))).distinct().toList());
        orphans.removeAll(heldAtClose);
        assertThat(orphans).as("keys of callers that did not get them, left behind by the close").isEmpty();
    }

    @Test
    void closingTheRedlockFromAnAcquisitionsCallbackDoesNotWaitForItself() throws Exception {
        Redlock closing = TestSupport.patientBuilder().nodes(redis.uris()).build();
        // The callback runs on the thread that read the last reply: a close that waited there for its own attempt
        // (or for replies read on that thread) would stall for its whole bound, over 5 s.
        java.util.concurrent.atomic.AtomicLong closedInNanos = new java.util.concurrent.atomic.AtomicLong();
        RedlockLease before = this.redlock.get().acquire("closed-in-callback", Duration.ofSeconds(30), Duration.ofSeconds(5));
        CompletableFuture<Optional<RedlockLease>> waiting = closing.tryAcquireAsync("closed-in-callback", Duration.ofSeconds(30),
                Duration.ofSeconds(10)).thenApply((lease) -> {
                    long start = System.nanoTime();
                    closing.close();
                    closedInNanos.set(System.nanoTime() - start);
                    return lease;
                });
        before.release(); // the waiter's grant, and so the callback, comes on the thread that reads the reply
        Optional<RedlockLease> held = waiting.get(10, TimeUnit.SECONDS);
        assertThat(closedInNanos.get()).as("nanoseconds the close took in the callback").isLessThan(TimeUnit.SECONDS.toNanos(1));
        closing.close(); // waits for the close that runs in the background
        assertThat(held).hasValueSatisfying((lease) -> assertThat(lease.isValid()).as("the lease held at the close").isFalse());
    }

    @Test
    void closingTheRedlockFromACallbackOnTheThreadThatDecidedTheAttemptDoesNotWaitForItself() throws Exception {
        // With three of five nodes unreachable, every attempt is refused before anything is sent: it is decided, and
        // the caller's callback runs, on the thread that made it (the JDK's delay scheduler for a retry), not on an
        // I/O thread. A close there that waited for the attempt would stall for its whole bound, over 5 s.
        List<String> uris = List.of(redis.uris().get(0), redis.uris().get(1), unreachableUri(), unreachableUri(), unreachableUri());
        Redlock closing = TestSupport.patientBuilder().nodes(uris).retryDelay(Duration.ofMillis(20)).build();
        java.util.concurrent.atomic.AtomicLong closedInNanos = new java.util.concurrent.atomic.AtomicLong(-1);
        CompletableFuture<Optional<RedlockLease>> waiting = closing.tryAcquireAsync("closed-on-retry", Duration.ofSeconds(30),
                Duration.ofMillis(200)).thenApply((lease) -> {
                    long start = System.nanoTime();
                    closing.close();
                    closedInNanos.set(System.nanoTime() - start);
                    return lease;
                });
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(closedInNanos.get()).as("nanoseconds the close took in the callback").isBetween(0L, TimeUnit.SECONDS.toNanos(1));
        closing.close(); // waits for the close that runs in the background
    }

    @Test
    void closingTheRedlockAgainFromALostCallbackThatItsCloseRunsReturnsAtOnce() throws Exception {
        Redlock closing = TestSupport.patientBuilder().nodes(redis.uris()).build();
        RedlockLease lease = closing.acquire("closed-when-lost", Duration.ofSeconds(30), Duration.ZERO);
        java.util.concurrent.atomic.AtomicLong closedInNanos = new java.util.concurrent.atomic.AtomicLong(-1);
        lease.lost().thenRun(() -> { // run by the close itself, which marks held leases lost
            long start = System.nanoTime();
            closing.close();
            closedInNanos.set(System.nanoTime() - start);
        });
        long start = System.nanoTime();
        closing.close();
        assertThat(closedInNanos.get()).as("nanoseconds the nested close took").isBetween(0L, TimeUnit.SECONDS.toNanos(1));
        assertThat(System.nanoTime() - start).as("nanoseconds the close took").isLessThan(TimeUnit.SECONDS.toNanos(5));
        for (int i = 0; i < redis.nodes().size(); i++) {
            this.nodes.get().delete(i, "redlock:closed-when-lost");
        }
    }

    /** A loopback address where nothing listens (a port that was free a moment ago). */
    private static String unreachableUri() throws java.io.IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "redis://127.0.0.1:" + socket.getLocalPort();
        }
    }

    @Test
    void aLeaseExtendedAfterItsValidityRanOutIsLostWithoutTouchingTheNodes() throws Exception {
        RedlockLease lease = this.redlock.get().acquire("late", Duration.ofMillis(200), Duration.ZERO);
        for (int i = 0; i < redis.nodes().size(); i++) {
            this.nodes.get().set(i, "redlock:late", lease.token(), Duration.ofSeconds(10)); // nodes whose clocks run slow
        }
        awaitTrue(Duration.ofSeconds(5), () -> !lease.isValid());
        assertThat(lease.extend(Duration.ofSeconds(60))).as("an extension past the validity").isFalse();
        assertThat(lease.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("validity ran out"));
        for (int i = 0; i < redis.nodes().size(); i++) {
            assertThat(this.nodes.get().pttl(i, "redlock:late")).as("node %d's key", i).isLessThanOrEqualTo(10_000L);
        }
    }

    @Test
    void releasesRacingExtensionsLeaveNoKeyBehind() throws Exception {
        ExecutorService extender = Executors.newSingleThreadExecutor();
        try {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < ITERATIONS / 2; i++) {
                RedlockLease lease = this.redlock.get().acquire("extended:" + i, Duration.ofMinutes(1), Duration.ZERO);
                Future<?> extending = extender.submit(() -> {
                    for (int e = 0; e < 3; e++) {
                        lease.extend(Duration.ofMinutes(1));
                    }
                });
                LockSupport.parkNanos(random.nextLong(1_000_000));
                lease.release();
                extending.get(10, TimeUnit.SECONDS);
            }
            // The automatic extension's tick racing the release: a 60 ms ttl is extended every ~30 ms.
            for (int i = 0; i < 100; i++) {
                RedlockLease lease = this.redlock.get().acquire("ticking:" + i, Duration.ofMillis(60), Duration.ZERO)
                        .autoExtend(Duration.ofMinutes(1));
                Thread.sleep(random.nextInt(90));
                lease.release();
                // release() returns at a quorum; the last nodes delete the key a moment later, never re-create it.
                String key = "redlock:ticking:" + i;
                awaitTrue(Duration.ofSeconds(2), () -> java.util.Arrays.stream(this.nodes.get().remainingMillis(key, lease.token()))
                        .allMatch((left) -> left == -1));
            }
        }
        finally {
            extender.shutdownNow();
        }
        assertNoKeysLeft("redlock:extended:*");
    }

    @Test
    void closingTheRedlockCompletesTheLossSignalOfLeasesStillHeld() throws Exception {
        Redlock closing = TestSupport.patientBuilder().nodes(redis.uris()).build();
        RedlockLease plain = closing.acquire("closed-plain", Duration.ofSeconds(30), Duration.ZERO);
        RedlockLease extended = closing.acquire("closed-extended", Duration.ofSeconds(1), Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> plainLost = plain.lost();
        CompletableFuture<Void> extendedLost = extended.lost();
        closing.close();
        plainLost.get(2, TimeUnit.SECONDS);
        extendedLost.get(2, TimeUnit.SECONDS);
        assertThat(plain.lostReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("closed"));
        assertThat(plain.isValid()).isFalse();
        assertThat(plain.remainingValidity()).isZero();
        assertThat(extended.isValid()).isFalse();
    }

    /**
     * Checks the lease's invariant once: when it is valid, a quorum of nodes holds its token for at least its
     * remaining validity (less the time the check itself took, which only favours the lease).
     * @return whether the lease was valid
     */
    private boolean assertBackedByAQuorum(RedlockLease lease, String redisKey) {
        long start = System.nanoTime();
        Duration remaining = lease.remainingValidity();
        boolean valid = lease.isValid();
        long[] held = this.nodes.get().remainingMillis(redisKey, lease.token());
        long spentMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
        if (!valid) {
            return false;
        }
        int backing = 0;
        for (long left : held) {
            if (left >= 0 && left + spentMillis >= remaining.toMillis()) {
                backing++;
            }
        }
        assertThat(backing).as("nodes holding the token for the remaining validity %s: %s", remaining,
                java.util.Arrays.toString(held)).isGreaterThanOrEqualTo(this.redlock.get().quorum());
        return true;
    }

    private void assertNoKeysLeft(String pattern) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> left = keysLeft(pattern);
        while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            left = keysLeft(pattern);
        }
        assertThat(left).as("keys left 10 s after the last lease was given up (node: key = token, pttl)").isEmpty();
    }

    private List<String> keysLeft(String pattern) {
        List<String> left = new ArrayList<>();
        for (int node = 0; node < redis.nodes().size(); node++) {
            for (String key : this.nodes.get().keys(node, pattern)) {
                if (key.endsWith("\u00FFwaiting")) {
                    continue; // a record of who was refused the lock, not a lock: it expires with the waiter's interest
                }
                left.add(node + ": " + key + " = " + this.nodes.get().get(node, key) + ", " + this.nodes.get().pttl(node, key) + " ms");
            }
        }
        return left;
    }

}
