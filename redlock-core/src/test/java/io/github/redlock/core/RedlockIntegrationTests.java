package io.github.redlock.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.core.internal.engine.Tokens;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class RedlockIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> other = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void acquireStoresTheTokenUnderThePrefixedKeyOnEveryNode() {
        RedlockLease lease = this.redlock.get().acquire("order:42", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(lease.key()).isEqualTo("order:42");
        assertThat(lease.token()).hasSizeGreaterThanOrEqualTo(16);
        this.nodes.get().awaitOnAll("redlock:order:42", lease.token());
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void customKeyPrefixIsUsed() {
        try (Redlock prefixed = TestSupport.patientBuilder().nodes(redis.uris()).keyPrefix("app:").build()) {
            RedlockLease lease = prefixed.acquire("job", Duration.ofSeconds(10), Duration.ZERO);
            this.nodes.get().awaitOnAll("app:job", lease.token());
            assertThat(this.nodes.get().values("redlock:job")).containsOnlyNulls();
        }
    }

    @Test
    void heldLockCannotBeTakenAgainTenTimesInARow() {
        for (int i = 0; i < 10; i++) {
            RedlockLease lease = this.redlock.get().tryAcquire("k", Duration.ofSeconds(10)).orElseThrow();
            assertThat(this.other.get().tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
            assertThat(this.redlock.get().tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
            lease.release();
            this.nodes.get().awaitAbsent("redlock:k");
        }
    }

    @Test
    void releasedLockCanBeTakenRightAfterReleaseTenTimesInARow() {
        for (int i = 0; i < 10; i++) {
            RedlockLease lease = this.redlock.get().tryAcquire("k", Duration.ofSeconds(10)).orElseThrow();
            assertThat(lease.release()).isTrue();
            this.nodes.get().awaitAbsent("redlock:k");
        }
    }

    @Test
    void tokensAreUnique() {
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            try (RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO)) {
                tokens.add(lease.token());
            }
        }
        for (int i = 0; i < 100_000; i++) {
            tokens.add(Tokens.newToken());
        }
        assertThat(tokens).hasSize(100_200);
    }

    @Test
    void validityIsBelowTheTtlByAtLeastTheDrift() {
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        long drift = 10_000 / 100 + 2;
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(10_000 - drift))
                .isGreaterThan(Duration.ofSeconds(8));
    }

    @Test
    void nodesKeepTheKeyForTheFullTtl() {
        long started = System.nanoTime();
        this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        awaitFullPttlOnEveryNode(10_000, started);
    }

    @Test
    void lockExpiresWithoutRelease() {
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofMillis(300), Duration.ZERO);
        assertThat(this.other.get().tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
        awaitTrue(Duration.ofSeconds(5), () -> !lease.isValid());
        assertThat(lease.remainingValidity()).isZero();
        assertThat(this.other.get().tryAcquire("k", Duration.ofSeconds(10), Duration.ofSeconds(5))).isPresent();
    }

    @Test
    void releaseNeverDeletesAnotherHoldersLock() {
        RedlockLease expired = this.redlock.get().acquire("k", Duration.ofMillis(200), Duration.ZERO);
        RedlockLease current = this.other.get().acquire("k", Duration.ofSeconds(10), Duration.ofSeconds(5));
        assertThat(expired.release()).isFalse();
        // The other client may have taken a bare quorum (its retry goes when a quorum is free): the expired key
        // leaves the last nodes with its ttl, and never takes the current holder's with it.
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:k").stream().filter(java.util.Objects::nonNull).allMatch(current.token()::equals));
        assertThat(this.nodes.get().values("redlock:k").stream().filter(java.util.Objects::nonNull).count()).isGreaterThanOrEqualTo(this.other.get().quorum());
        assertThat(current.isValid()).isTrue();
        assertThat(current.release()).isTrue();
    }

    @Test
    void releaseIsIdempotent() {
        RedlockLease first = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(first.release()).isTrue();
        assertThat(first.isValid()).isFalse();
        // Same client, so its SETs follow the release on every connection: all five nodes take the new token.
        RedlockLease second = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:k", second.token());
        assertThat(first.release()).isTrue();
    }

    @Test
    void aSecondReleaseSendsNothing() {
        RedlockLease first = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        first.release();
        // Same client, so its SETs follow the release on every connection: all five nodes take the new token.
        RedlockLease second = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:k", second.token());
        first.release();
        first.close();
        this.nodes.get().awaitOnAll("redlock:k", second.token());
    }

    @Test
    void closeReleasesTheLease() {
        try (RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO)) {
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(this.other.get().tryAcquire("k", Duration.ofSeconds(10))).isPresent();
    }

    @Test
    void extendRaisesThePttlOnEveryNode() {
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ZERO);
        long extended = System.nanoTime();
        assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        awaitFullPttlOnEveryNode(20_000, extended);
        assertThat(this.nodes.get().values("redlock:k")).containsOnly(lease.token());
    }

    /**
     * Every node holds {@code redlock:k} with the whole {@code ttl} less only the time since {@code sentNanos}: a call
     * returns once a quorum answered, so the others' writes may still be on their way, and are waited for (each node's
     * command follows the call's earlier ones on its connection).
     */
    private void awaitFullPttlOnEveryNode(long ttlMillis, long sentNanos) {
        for (int i = 0; i < 5; i++) {
            int node = i;
            awaitTrue(Duration.ofSeconds(5), () -> {
                long pttl = this.nodes.get().pttl(node, "redlock:k");
                return pttl > ttlMillis - TestSupport.millisSince(sentNanos) - 100 && pttl <= ttlMillis;
            });
        }
    }

    @Test
    void extendRenewsValidity() {
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(1), Duration.ZERO);
        assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(15))
                .isLessThanOrEqualTo(Duration.ofMillis(20_000 - 202));
    }

    @Test
    void extendFailsAfterExpiryOnceAnotherHolderTookTheKey() {
        RedlockLease expired = this.redlock.get().acquire("k", Duration.ofMillis(200), Duration.ZERO);
        RedlockLease current = this.other.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5));
        assertThat(expired.extend(Duration.ofSeconds(60))).isFalse();
        assertThat(expired.isValid()).isFalse();
        for (int i = 0; i < 5; i++) {
            assertThat(this.nodes.get().pttl(i, "redlock:k")).isLessThanOrEqualTo(5_000L);
        }
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:k").stream().filter(java.util.Objects::nonNull).allMatch(current.token()::equals));
    }

    @Test
    void extendAfterReleaseFails() {
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        lease.release();
        assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
        this.nodes.get().awaitAbsent("redlock:k");
    }

    @Test
    void asyncAcquisitionWaitsForTheHolder() throws Exception {
        RedlockLease holder = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(this.other.get().tryAcquireAsync("k", Duration.ofSeconds(10), Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        CompletableFuture<Optional<RedlockLease>> waiting = this.other.get().tryAcquireAsync("k", Duration.ofSeconds(10),
                Duration.ofSeconds(10));
        assertThat(waiting).isNotDone();
        holder.release();
        RedlockLease next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        // A quorum holds the new token. A node can still refuse the retry when it runs just before the
        // holder's release reaches that node (another connection), so not necessarily all five.
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values("redlock:k").stream().filter(next.token()::equals).count() >= 3
                && !this.nodes.get().values("redlock:k").contains(holder.token()));
    }

    @Test
    void cancellingAnAsyncAcquisitionStopsItsAttempts() throws Exception {
        RedlockLease holder = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        CompletableFuture<Optional<RedlockLease>> waiting = this.other.get().tryAcquireAsync("k", Duration.ofSeconds(10),
                Duration.ofSeconds(30));
        waiting.cancel(false);
        holder.release();
        assertNobodyPicksUpTheLockForTheCancelledCaller();
    }

    @Test
    void anAsyncAcquireFailsWithTheRefusalTheBlockingOneThrows() throws Exception {
        RedlockLease holder = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        RedlockAcquisitionException blocking = catchThrowableOfType(RedlockAcquisitionException.class,
                () -> this.other.get().acquire("k", Duration.ofSeconds(10), Duration.ofMillis(100)));
        CompletableFuture<RedlockLease> refused = this.other.get().acquireAsync("k", Duration.ofSeconds(10), Duration.ofMillis(100));
        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(RedlockAcquisitionException.class, (async) -> {
                    assertThat(async.getKey()).isEqualTo(blocking.getKey()).isEqualTo("k");
                    assertThat(async.getAgreedNodes()).isEqualTo(blocking.getAgreedNodes()).isZero();
                    assertThat(async.getQuorum()).isEqualTo(3);
                    assertThat(async.getNodeFailures()).as("every node reported").hasSize(5)
                            .allSatisfy((node, why) -> assertThat(why).contains("held by another client"));
                    assertThat(async.getMessage()).contains("attempts in 100 ms");
                });
        holder.release();
        RedlockLease next = this.other.get().acquireAsync("k", Duration.ofSeconds(10), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThat(next.isValid()).isTrue();
        next.release();
    }

    @Test
    void asyncAcquiresOfReadWriteAndSeveralKeysFailAsTheBlockingOnesDo() throws Exception {
        RedlockLease writer = this.redlock.get().acquireWriteAsync("rw", Duration.ofSeconds(10), Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> this.other.get().acquireReadAsync("rw", Duration.ofSeconds(10), Duration.ZERO).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(RedlockAcquisitionException.class);
        writer.release();
        RedlockLease reader = this.other.get().acquireReadAsync("rw", Duration.ofSeconds(10), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> this.redlock.get().acquireWriteAsync("rw", Duration.ofSeconds(10), Duration.ZERO).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(RedlockAcquisitionException.class);
        reader.release();
        RedlockLease both = this.redlock.get().acquireAsync(List.of("a", "b"), Duration.ofSeconds(10), Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> this.other.get().acquireAsync(List.of("b", "c"), Duration.ofSeconds(10), Duration.ZERO).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(RedlockAcquisitionException.class, (refusal) -> assertThat(refusal.getKey()).isEqualTo("b,c"));
        both.release();
    }

    @Test
    void cancellingAnAsyncAcquireStopsItsAttempts() throws Exception {
        RedlockLease holder = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        CompletableFuture<RedlockLease> waiting = this.other.get().acquireAsync("k", Duration.ofSeconds(10), Duration.ofSeconds(30));
        waiting.cancel(false);
        holder.release();
        assertNobodyPicksUpTheLockForTheCancelledCaller();
    }

    /** Nobody may pick up the lock {@code k} for a cancelled caller: it stays free for a third client. */
    private static void assertNobodyPicksUpTheLockForTheCancelledCaller() throws InterruptedException {
        try (Redlock third = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            for (int i = 0; i < 5; i++) {
                try (RedlockLease lease = third.acquire("k", Duration.ofSeconds(10), Duration.ofSeconds(2))) {
                    assertThat(lease.isValid()).isTrue();
                }
                Thread.sleep(100); // longer than a retry delay of the cancelled caller, had it kept trying
            }
        }
    }

    @Test
    void interruptedWaiterGivesUp() throws Exception {
        InterruptedWaiter waiter = interruptAWaiter();
        assertThat(waiter.thread().isAlive()).isFalse();
        assertThat(waiter.result().get()).isEmpty();
    }

    @Test
    void interruptedWaiterKeepsItsInterruptFlag() throws Exception {
        InterruptedWaiter waiter = interruptAWaiter();
        assertThat(waiter.interrupted()).isTrue();
    }

    /** Interrupts a thread that waits for a held lock, and returns once it ended (or after 5 seconds). */
    private InterruptedWaiter interruptAWaiter() throws InterruptedException {
        RedlockLease holder = this.redlock.get().acquire("k", Duration.ofSeconds(10), Duration.ZERO);
        AtomicReference<Optional<RedlockLease>> result = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            result.set(this.other.get().tryAcquire("k", Duration.ofSeconds(10), Duration.ofSeconds(30)));
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        waiter.start();
        // Refused once, and waiting: its record of waiting is on the nodes.
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists("redlock:k\u00FFwaiting").contains(true));
        waiter.interrupt();
        waiter.join(5_000);
        holder.release();
        return new InterruptedWaiter(waiter, result, interrupted);
    }

    private record InterruptedWaiter(Thread thread, AtomicReference<Optional<RedlockLease>> result,
            AtomicBoolean interrupted) {
    }

}
