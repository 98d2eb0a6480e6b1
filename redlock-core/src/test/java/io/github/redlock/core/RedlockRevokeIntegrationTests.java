package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static io.github.redlock.core.TestSupport.millisSince;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An operator's revoke ({@link Redlock#revoke(String)}) on five real nodes: it frees an exclusive lock that another
 * client holds, on every node, counts the nodes that held it, wakes a waiter at once, makes the holder's lease lost
 * at its next extension, and leaves every other key alone: read-write locks, the library's own keys beside the
 * lock, strings without an expiry, other types, and keys outside the prefix.
 */
class RedlockRevokeIntegrationTests {

    private static final Duration LONG_TTL = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    /** The client whose lock is revoked: a holder that is gone, as far as the operator knows. */
    @RegisterExtension
    final RedisClientExtension<Redlock> holder = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    /** The operator's client: another instance of the application. */
    @RegisterExtension
    final RedisClientExtension<Redlock> operator = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void revokeFreesALockThatAnotherClientHoldsOnEveryNodeAndCountsThem() {
        RedlockLease held = this.holder.get().acquire("nightly-job", LONG_TTL, Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:nightly-job", held.token());

        assertThat(this.operator.get().revoke("nightly-job")).isEqualTo(5);

        assertThat(this.nodes.get().exists("redlock:nightly-job")).containsOnly(false);
        Optional<RedlockLease> next = this.operator.get().tryAcquire("nightly-job", LONG_TTL);
        assertThat(next).as("the lock is free at once, not after its 60 s ttl").isPresent();
        next.get().release();
        assertThat(this.operator.get().revoke("nightly-job")).as("nothing left to free").isZero();
    }

    /**
     * The instance that holds the lease revokes its lock: its lease (not auto-extended) is lost at once, with the
     * reason, and no longer listed as valid, before another client takes the lock. (Before, it said valid with ~60 s
     * left while the other client held the lock.)
     */
    @Test
    void revokeThroughTheHoldingInstanceLosesItsOwnLeasesAtOnce() throws Exception {
        RedlockLease held = this.holder.get().acquire("job", LONG_TTL, Duration.ZERO);
        RedlockLease other = this.holder.get().acquire("job-b", LONG_TTL, Duration.ZERO);
        CompletableFuture<Void> lost = held.lost();

        assertThat(this.holder.get().revoke("job")).isGreaterThanOrEqualTo(3);

        assertThat(lost).isDone();
        assertThat(held.isValid()).isFalse();
        assertThat(held.remainingValidity()).isEqualTo(Duration.ZERO);
        assertThat(other.isValid()).as("a lock of another name").isTrue();
        assertThat(this.holder.get().heldLeases()).filteredOn(RedlockLease::isValid).containsExactly(other);
        Optional<RedlockLease> next = this.operator.get().tryAcquire("job", LONG_TTL);
        assertThat(next).isPresent();
        assertThat(held.isValid()).isFalse();
        next.get().release();

        RedlockLease both = this.holder.get().acquire(List.of("job-a", "job-c"), LONG_TTL, Duration.ZERO);
        assertThat(this.holder.get().revoke("job-c")).isGreaterThanOrEqualTo(3);
        assertThat(both.isValid()).as("a lock on several keys among them the revoked one").isFalse();
        assertThat(other.isValid()).isTrue();
        other.release();
    }

    @Test
    void revokeCountsOnlyTheNodesThatHeldTheLock() {
        this.nodes.get().set(0, "redlock:partial", "another-clients-token", LONG_TTL);
        this.nodes.get().set(3, "redlock:partial", "another-clients-token", LONG_TTL);

        assertThat(this.operator.get().revoke("partial")).isEqualTo(2);

        assertThat(this.nodes.get().exists("redlock:partial")).containsOnly(false);
    }

    @Test
    void revokeWakesAWaiterAtOnce() {
        RedlockLease held = this.holder.get().acquire("report", Duration.ofSeconds(30), Duration.ZERO);
        try (Redlock waiter = TestSupport.patientBuilder().nodes(redis.uris()).retryDelay(Duration.ofSeconds(2)).build()) {
            CompletableFuture<Optional<RedlockLease>> waiting = waiter.tryAcquireAsync("report", Duration.ofSeconds(10),
                    Duration.ofSeconds(10));
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().channels(0).size() == 1); // refused, and listening

            long revoked = System.nanoTime();
            assertThat(this.operator.get().revoke("report")).isEqualTo(5);
            Optional<RedlockLease> lease = waiting.join();
            long waited = millisSince(revoked);

            assertThat(lease).isPresent();
            assertThat(waited).as("ms from the revoke to the grant, against a retry delay of 1 to 3 s and a ttl of 30 s")
                    .isLessThan(500);
            assertThat(lease.get().token()).isNotEqualTo(held.token());
            lease.get().release();
        }
    }

    @Test
    void anAutoExtendedLeaseIsLostAtItsNextExtensionOnceRevoked() throws Exception {
        RedlockLease held = this.holder.get().acquire("import", Duration.ofSeconds(1), Duration.ZERO).autoExtend(Duration.ofMinutes(1));
        CompletableFuture<Void> lost = held.lost();
        // acquire returns once a quorum granted: the other nodes' SETs may still be on their way.
        awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.get().exists("redlock:import").contains(false));

        assertThat(this.operator.get().revoke("import")).isEqualTo(5);

        lost.get(5, TimeUnit.SECONDS);
        assertThat(held.isValid()).isFalse();
        assertThat(held.remainingValidity()).isEqualTo(Duration.ZERO);
        assertThat(this.nodes.get().exists("redlock:import")).as("no extension sets it again").containsOnly(false);
        assertThat(held.release()).isFalse();
    }

    @Test
    void revokeLeavesReadWriteLocksAndTheLibrarysOwnKeysAlone() {
        RedlockLease writer = this.holder.get().tryAcquireWrite("doc", LONG_TTL).orElseThrow();
        RedlockLease reader = this.holder.get().tryAcquireRead("book", LONG_TTL).orElseThrow();
        this.nodes.get().awaitOnAll("redlock:doc\u00FFwriter", writer.token());
        for (int i = 0; i < 5; i++) {
            // Strings with a ttl, as a lock is, under the keys of the library's own state (0xFF after the prefix or name).
            this.nodes.get().set(i, "redlock:\u00FFfencing-counter", "42", LONG_TTL);
            this.nodes.get().set(i, "redlock:report\u00FFwaiting", "a-client", LONG_TTL);
        }

        assertThat(this.operator.get().revoke("doc")).as("the exclusive lock 'doc' is not held").isZero();
        assertThat(this.operator.get().revoke("doc\u00FFwriter")).as("UTF-8 never names a read-write lock's part").isZero();
        assertThat(this.operator.get().revoke("\u00FFfencing-counter")).isZero();
        assertThat(this.operator.get().revoke("report\u00FFwaiting")).isZero();

        assertThat(this.nodes.get().values("redlock:doc\u00FFwriter")).containsOnly(writer.token());
        assertThat(this.nodes.get().members(0, "redlock:book\u00FFreaders")).containsExactly(reader.token());
        assertThat(this.nodes.get().values("redlock:\u00FFfencing-counter")).containsOnly("42");
        assertThat(this.nodes.get().values("redlock:report\u00FFwaiting")).containsOnly("a-client");
        assertThat(writer.extend(LONG_TTL)).isTrue();
        assertThat(reader.extend(LONG_TTL)).isTrue();
        assertThat(writer.release()).isTrue();
        assertThat(reader.release()).isTrue();
    }

    @Test
    void revokeLeavesKeysOutsideThePrefixAndKeysThatAreNoLockAlone() {
        for (int i = 0; i < 5; i++) {
            this.nodes.get().set(i, "orders", "not-a-lock", LONG_TTL); // the name without the prefix
            this.nodes.get().set(i, "other:orders", "not-a-lock", LONG_TTL); // another prefix
            this.nodes.get().put(i, "redlock:settings", "kept-forever"); // no ttl: not a lock
            this.nodes.get().eval(i, "redis.call('hset', KEYS[1], 'field', ARGV[1]) redis.call('pexpire', KEYS[1], 60000) return 1",
                    "redlock:profile", "a-hash");
        }

        assertThat(this.operator.get().revoke("orders")).isZero();
        assertThat(this.operator.get().revoke("settings")).isZero();
        assertThat(this.operator.get().revoke("profile")).isZero();
        assertThat(this.operator.get().revoke("redlock:orders")).as("the prefix is added, never assumed").isZero();

        assertThat(this.nodes.get().values("orders")).containsOnly("not-a-lock");
        assertThat(this.nodes.get().values("other:orders")).containsOnly("not-a-lock");
        assertThat(this.nodes.get().values("redlock:settings")).containsOnly("kept-forever");
        assertThat(this.nodes.get().exists("redlock:profile")).containsOnly(true);
    }

    @Test
    void revokeCountsTheNodesThatAnswerAndDoesNotWaitForAFrozenOne() {
        RedlockLease held = this.holder.get().acquire("ledger", LONG_TTL, Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:ledger", held.token());
        try (Redlock impatient = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofMillis(300)).build()) {
            redis.node(4).pause();
            long start = System.nanoTime();
            int revoked = impatient.revoke("ledger");
            long elapsed = millisSince(start);
            redis.node(4).resume();

            assertThat(revoked).isEqualTo(4);
            assertThat(elapsed).as("ms: the frozen node costs its timeout, not a hang").isLessThan(2_000);
        }
        // Sent once, answered late: the frozen node applies it when it wakes; nothing sends it again.
        awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.get().exists("redlock:ledger").contains(true));
    }

    @Test
    void badCallsAreRefusedClearly() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.operator.get().revoke(null)).withMessageContaining("key");
        assertThatIllegalArgumentException().isThrownBy(() -> this.operator.get().revoke(" ")).withMessageContaining("key");
        Redlock closed = TestSupport.patientBuilder().nodes(redis.uris()).build();
        closed.close();
        assertThatIllegalStateException().isThrownBy(() -> closed.revoke("orders")).withMessageContaining("closed");
    }

}
