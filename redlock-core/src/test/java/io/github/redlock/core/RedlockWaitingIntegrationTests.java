package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static io.github.redlock.core.TestSupport.millisSince;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting for a held lock without polling, on five real nodes: a waiter whose retry delay is 4 s (so that a
 * retry after the delay would take at least 2 s) is woken by the release message of another {@code Redlock},
 * retries when the holder's key expires, and still gets the lock when messages are lost. The bounds (1 s) are
 * generous for a loaded machine and still below the shortest retry.
 */
class RedlockWaitingIntegrationTests {

    private static final Duration SLOW_RETRY = Duration.ofSeconds(4);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> holder = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> waiter = RedisClientExtension.of(redis,
            (uris) -> TestSupport.patientBuilder().nodes(uris).retryDelay(SLOW_RETRY).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> inspector = RedisClientExtension.of(redis, NodeInspector::new);

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.nodes = this.inspector.get();
    }

    @Test
    void aWaiterWakesSoonAfterAReleaseOnAnotherInstance() {
        RedlockLease held = this.holder.get().acquire("k", Duration.ofSeconds(30), Duration.ZERO);
        CompletableFuture<Optional<RedlockLease>> waiting = this.waiter.get().tryAcquireAsync("k", Duration.ofSeconds(10), Duration.ofSeconds(10));
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(0).size() == 1); // refused, and waiting for a release
        long released = System.nanoTime();
        held.release();
        Optional<RedlockLease> lease = waiting.join();
        long waited = millisSince(released);
        assertThat(lease).isPresent();
        assertThat(waited).as("ms from the release to the grant").isLessThan(1_000);
        lease.get().release();
    }

    @Test
    void aWaiterForAHolderThatNeverReleasesGetsTheLockSoonAfterItsKeyExpires() {
        for (int i = 0; i < 5; i++) {
            this.nodes.set(i, "redlock:k", "a-crashed-holder", Duration.ofMillis(800));
        }
        long expires = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
        Optional<RedlockLease> lease = this.waiter.get().tryAcquire("k", Duration.ofSeconds(10), Duration.ofSeconds(10));
        long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expires);
        assertThat(lease).isPresent();
        assertThat(late).as("ms from the key's expiry to the grant (a retry would come 1.2 s after it or later)").isLessThan(1_000);
        lease.get().release();
    }

    @Test
    void aLostReleaseMessageStillEndsInTheLockThroughTheRetryDelay() {
        RedlockLease held = this.holder.get().acquire("k", Duration.ofSeconds(30), Duration.ZERO);
        CompletableFuture<Optional<RedlockLease>> waiting = this.waiter.get().tryAcquireAsync("k", Duration.ofSeconds(10), Duration.ofSeconds(15));
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(0).size() == 1);
        for (int i = 0; i < 5; i++) {
            this.nodes.dropPubSubClients(i);
        }
        held.release(); // published while the waiter's pub/sub connections are down: the message is lost
        Optional<RedlockLease> lease = waiting.join();
        assertThat(lease).isPresent();
        lease.get().release();
    }

    @Test
    void aWaitingWriterWakesSoonAfterTheLastReaderReleases() {
        RedlockLease reader = this.holder.get().acquireRead("doc", Duration.ofSeconds(30), Duration.ZERO);
        CompletableFuture<Optional<RedlockLease>> writer = this.waiter.get().tryAcquireWriteAsync("doc", Duration.ofSeconds(10), Duration.ofSeconds(10));
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(0).size() == 1); // refused, and waiting for a release
        long released = System.nanoTime();
        reader.release();
        Optional<RedlockLease> lease = writer.join();
        assertThat(lease).isPresent();
        assertThat(millisSince(released)).as("ms from the reader's release to the writer's grant").isLessThan(1_000);
        lease.get().release();
    }

    @Test
    void waitersOfEveryKindWakeSoonAfterTheReleaseOnAnotherInstance() {
        Duration ttl = Duration.ofSeconds(30);
        Duration wait = Duration.ofSeconds(10);
        // A lock on two keys, one of them held alone by the other instance.
        RedlockLease one = this.holder.get().acquire("pair:b", ttl, Duration.ZERO);
        assertWokenSoonAfter(one, this.waiter.get().tryAcquireAsync(List.of("pair:a", "pair:b"), ttl, wait), "waiting");
        // A reader behind a writer, a writer behind a writer, a writer behind a reader.
        RedlockLease writer = this.holder.get().acquireWrite("rw", ttl, Duration.ZERO);
        assertWokenSoonAfter(writer, this.waiter.get().tryAcquireReadAsync("rw", ttl, wait), "queued-readers");
        writer = this.holder.get().acquireWrite("rw2", ttl, Duration.ZERO);
        assertWokenSoonAfter(writer, this.waiter.get().tryAcquireWriteAsync("rw2", ttl, wait), "queued-writers");
        RedlockLease reader = this.holder.get().acquireRead("rw3", ttl, Duration.ZERO);
        assertWokenSoonAfter(reader, this.waiter.get().tryAcquireWriteAsync("rw3", ttl, wait), "queued-writers");
    }

    /**
     * Waits until the waiter listens on the nodes and its refusal is on record on node 0 (the key's part that says who
     * waits: the release publishes only while it exists), releases the held lease, and expects the grant soon after.
     */
    private void assertWokenSoonAfter(RedlockLease held, CompletableFuture<Optional<RedlockLease>> waiting, String record) {
        awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.channels(0).isEmpty()); // refused, and waiting for a release
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.exists("redlock:" + held.key() + "\u00FF" + record).get(0));
        long released = System.nanoTime();
        held.release();
        Optional<RedlockLease> lease = waiting.join();
        assertThat(lease).isPresent();
        assertThat(millisSince(released)).as("ms from the release of '%s' to the grant", held.key()).isLessThan(1_000);
        lease.get().release();
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(0).isEmpty());
    }

    @Test
    void aReleaseThatNoOtherClientWaitsForPublishesNothing() {
        Duration ttl = Duration.ofSeconds(30);
        Redlock redlock = this.holder.get();
        // Each kind of lock once before, so that the nodes have seen every script.
        for (int round = 0; round < 2; round++) {
            this.nodes.resetStats();
            redlock.acquire("alone", ttl, Duration.ZERO).release();
            redlock.tryAcquire(List.of("alone:a", "alone:b"), ttl, Duration.ZERO).orElseThrow().release();
            redlock.acquireRead("alone:doc", ttl, Duration.ZERO).release();
            redlock.acquireWrite("alone:doc", ttl, Duration.ZERO).release();
            // A local waiter is woken in this JVM: no node needs to publish for it either.
            RedlockLease held = redlock.acquire("alone:local", ttl, Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> local = redlock.tryAcquireAsync("alone:local", ttl, Duration.ofSeconds(10));
            held.release();
            local.join().orElseThrow().release();
        }
        assertThat(this.nodes.publishCalls()).as("PUBLISH calls on each node").containsOnly(0L);
    }

    @Test
    void noChannelStaysSubscribedOnceEveryWaiterIsGone() {
        RedlockLease held = this.holder.get().acquire("busy", Duration.ofSeconds(30), Duration.ZERO);
        List<CompletableFuture<Optional<RedlockLease>>> waits = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waits.add(this.waiter.get().tryAcquireAsync("busy", Duration.ofSeconds(10), Duration.ofMillis(300)));
            waits.add(this.waiter.get().tryAcquireAsync("free:" + i, Duration.ofSeconds(10), Duration.ofSeconds(5)));
        }
        waits.get(0).cancel(true);
        for (CompletableFuture<Optional<RedlockLease>> wait : waits) {
            wait.handle((lease, failure) -> lease).join();
        }
        waits.stream().filter((wait) -> !wait.isCancelled()).forEach((wait) -> wait.join().ifPresent(RedlockLease::release));
        held.release();
        for (int i = 0; i < 5; i++) {
            int node = i;
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(node).isEmpty());
        }
    }

    @Test
    void waitersInOneJvmGetTheLockInArrivalOrderAndAtOnceAfterEachRelease() {
        Redlock local = this.waiter.get();
        RedlockLease held = local.acquire("line", Duration.ofSeconds(30), Duration.ZERO);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Boolean>> done = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int arrival = i;
            done.add(local.tryAcquireAsync("line", Duration.ofSeconds(30), Duration.ofSeconds(20)).thenCompose((lease) -> {
                order.add(arrival);
                return lease.map(RedlockLease::releaseAsync).orElse(CompletableFuture.completedFuture(false));
            }));
            // Arrival is the call: it joins the line before it returns.
        }
        long released = System.nanoTime();
        held.release();
        done.forEach(CompletableFuture::join);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(millisSince(released)).as("six handoffs, with a retry delay of 4 s").isLessThan(3_000);
        assertThat(done).allSatisfy((lease) -> assertThat(lease.join()).isTrue());
    }

    @Test
    void onlyTheFirstOfManyLocalWaitersSendsAttempts() {
        RedlockLease held = this.holder.get().acquire("hot", Duration.ofSeconds(30), Duration.ZERO);
        this.nodes.resetStats();
        List<CompletableFuture<Optional<RedlockLease>>> waits = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waits.add(this.waiter.get().tryAcquireAsync("hot", Duration.ofSeconds(10), Duration.ofSeconds(10)));
        }
        sleep(500);
        long[] calls = this.nodes.scriptCalls();
        assertThat(calls[0]).as("attempts on node 0 while 20 callers wait for a held lock").isLessThanOrEqualTo(3);
        held.release();
        for (CompletableFuture<Optional<RedlockLease>> wait : waits) {
            assertThat(wait.join()).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
        }
    }

    /**
     * A caller that comes into an empty local line while this JVM holds the lock waits for that lease's release
     * in this JVM, instead of an attempt (its clean-up, and a subscription on every node) that every node would
     * refuse while the lease is valid; the release hands the lock over at once.
     */
    @Test
    void aCallerThatFindsTheLockHeldInItsJvmSendsNothingUntilItsRelease() {
        Redlock local = this.waiter.get();
        RedlockLease held = local.acquire("busy", Duration.ofSeconds(30), Duration.ZERO);
        this.nodes.resetStats();
        CompletableFuture<Optional<RedlockLease>> waiting = local.tryAcquireAsync("busy", Duration.ofSeconds(30), Duration.ofSeconds(20));
        sleep(500); // time for an attempt, its clean-up and a subscription, which must not come
        long[] calls = this.nodes.lockScriptCalls();
        for (int node = 0; node < 5; node++) {
            assertThat(calls[node]).as("scripts on node %d while the lock is held in the waiter's JVM", node).isZero();
            assertThat(this.nodes.channels(node)).as("channels subscribed on node %d", node).isEmpty();
        }
        long released = System.nanoTime();
        held.release();
        RedlockLease lease = waiting.join().orElseThrow();
        assertThat(millisSince(released)).as("ms from the release to the local grant, retry delay 4 s").isLessThan(1_000);
        assertThat(lease.release()).isTrue();
    }

    /**
     * A waiter whose turn in the local line comes because the caller before it got the lock waits for that lease's
     * release in this JVM, instead of an attempt (and its clean-up) that every node would refuse while it is held.
     */
    @Test
    void aLocalWaiterBehindALocalHolderSendsNothingUntilItsRelease() {
        Redlock local = this.waiter.get();
        RedlockLease first = local.acquire("relay", Duration.ofSeconds(30), Duration.ZERO);
        this.nodes.resetStats();
        CompletableFuture<Optional<RedlockLease>> second = local.tryAcquireAsync("relay", Duration.ofSeconds(30), Duration.ofSeconds(20));
        CompletableFuture<Optional<RedlockLease>> third = local.tryAcquireAsync("relay", Duration.ofSeconds(30), Duration.ofSeconds(20));
        first.release();
        RedlockLease secondLease = second.join().orElseThrow();
        sleep(500); // the third's turn came when the second got the lock: it must stay silent while the lock is held
        long[] calls = this.nodes.lockScriptCalls();
        for (int node = 0; node < 5; node++) {
            assertThat(calls[node]).as("scripts on node %d: the first's release and the second's attempt, nothing of the third's", node)
                    .isLessThanOrEqualTo(2);
        }
        long released = System.nanoTime();
        secondLease.release();
        RedlockLease thirdLease = third.join().orElseThrow();
        assertThat(millisSince(released)).as("ms from the release to the next local grant, retry delay 4 s").isLessThan(1_000);
        thirdLease.release();
    }

    @Test
    void aWaiterDoesNotSpinWhileTheHolderKeepsTheLockOnABareQuorum() {
        RedlockLease held = this.holder.get().acquire("bare", Duration.ofSeconds(30), Duration.ZERO);
        this.nodes.awaitOnAll("redlock:bare", held.token());
        this.nodes.delete(3, "redlock:bare");
        this.nodes.delete(4, "redlock:bare"); // each attempt now takes nodes 3 and 4 and cleans them up again
        this.nodes.resetStats();
        assertThat(this.waiter.get().tryAcquire("bare", Duration.ofSeconds(10), Duration.ofSeconds(2))).isEmpty();
        assertThat(this.nodes.scriptCalls()[3]).as("script calls on node 3 during a 2 s wait, retry delay 4 s").isLessThanOrEqualTo(8);
        held.release();
    }

    @Test
    void anAttemptWhoseQuorumCameTooLateIsNotRetriedAtOnce() {
        this.nodes.resetStats();
        // A 2 ms ttl leaves no validity after any round trip: every attempt reaches a quorum too late.
        assertThat(this.waiter.get().tryAcquire("late", Duration.ofMillis(2), Duration.ofSeconds(1))).isEmpty();
        assertThat(this.nodes.scriptCalls()[0]).as("script calls on node 0 during a 1 s wait, retry delay 4 s").isLessThanOrEqualTo(8);
    }

    @Test
    void aReleaseSucceedsWhereAnAclForbidsPublishingItsMessage() {
        try {
            for (int i = 0; i < 5; i++) {
                this.nodes.command(i, "ACL", "SETUSER", "default", "resetchannels");
            }
            RedlockLease held = this.holder.get().acquire("acl", Duration.ofSeconds(30), Duration.ZERO);
            assertThat(held.release()).isTrue();
            // release() returns at a quorum: the other nodes' deletes may still be on their way.
            awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.exists("redlock:acl").contains(true));
        }
        finally {
            for (int i = 0; i < 5; i++) {
                this.nodes.command(i, "ACL", "SETUSER", "default", "allchannels");
            }
        }
    }

    @Test
    void aCallerThatDoesNotWaitSubscribesToNothing() {
        RedlockLease held = this.holder.get().acquire("k", Duration.ofSeconds(30), Duration.ZERO);
        assertThat(this.waiter.get().tryAcquire("k", Duration.ofSeconds(10))).isEmpty();
        assertThat(this.nodes.channels(0)).isEmpty();
        held.release();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

}
