package io.github.redlock.core;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release of an exclusive lease that a caller of the same JVM waits behind hands the key over in one
 * script per node: on five real nodes, the key goes from the holder's token to the waiter's without ever being
 * free, and only where the holder still held it; a holder that no longer held a quorum hands over nothing.
 */
class RedlockHandoffIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis,
            (uris) -> TestSupport.patientBuilder().nodes(uris).retryDelay(Duration.ofSeconds(2)).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> inspector = RedisClientExtension.of(redis, NodeInspector::new);

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.nodes = this.inspector.get();
    }

    @Test
    void aReleaseHandsTheKeyToTheWaiterBehindItWithOneScriptPerNode() throws Exception {
        RedlockLease held = this.redlock.get().acquire("relay", Duration.ofSeconds(10), Duration.ZERO);
        CompletableFuture<Optional<RedlockLease>> waiting = this.redlock.get().tryAcquireAsync("relay", Duration.ofSeconds(40),
                Duration.ofSeconds(20)); // behind the holder when the call returns
        this.nodes.resetStats();
        assertThat(held.release()).as("the release of the lease handed over").isTrue();
        RedlockLease next = waiting.join().orElseThrow();
        assertThat(next.token()).isNotEqualTo(held.token());
        this.nodes.awaitValues("redlock:relay", next.token(), next.token(), next.token(), next.token(), next.token());
        long[] calls = this.nodes.lockScriptCalls();
        for (int node = 0; node < 5; node++) {
            assertThat(calls[node]).as("scripts on node %d: the handoff alone", node).isEqualTo(1);
            assertThat(this.nodes.pttl(node, "redlock:relay")).as("ms left on node %d: the waiter's ttl, not the holder's", node)
                    .isGreaterThan(30_000);
        }
        assertThat(next.isValid()).isTrue();
        assertThat(next.remainingValidity()).isGreaterThan(Duration.ofSeconds(30)).isLessThanOrEqualTo(Duration.ofSeconds(40));
        assertThat(next.release()).isTrue();
        this.nodes.awaitAbsent("redlock:relay");
    }

    /**
     * The hazard: a lease that believes it holds the lock after its key vanished from a majority of nodes (say
     * they restarted empty) must not pass the lock on. The handoff only replaces the releasing lease's own token,
     * so the two nodes that still hold it are no quorum, and what it set there is deleted again.
     */
    @Test
    void aLeaseThatNoLongerHoldsAQuorumHandsOverNothing() throws Exception {
        RedlockLease held = this.redlock.get().acquire("gone", Duration.ofSeconds(10), Duration.ZERO);
        this.nodes.awaitOnAll("redlock:gone", held.token());
        CompletableFuture<Optional<RedlockLease>> waiting = this.redlock.get().tryAcquireAsync("gone", Duration.ofSeconds(10),
                Duration.ofSeconds(20));
        for (int node = 0; node < 3; node++) {
            this.nodes.set(node, "redlock:gone", "another-client", Duration.ofMillis(1_500));
        }
        assertThat(held.release()).as("only two nodes still held the lease").isFalse();
        RedlockLease next = waiting.join().orElseThrow(); // once the other client's keys expired
        awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.values("redlock:gone").contains("another-client"));
        for (String value : this.nodes.values("redlock:gone")) {
            assertThat(value).as("no node keeps a key of the failed handoff").isIn(next.token(), null);
        }
        assertThat(this.nodes.values("redlock:gone").stream().filter(next.token()::equals).count()).isGreaterThanOrEqualTo(3);
        assertThat(next.release()).isTrue();
        this.nodes.awaitAbsent("redlock:gone");
    }

    @Test
    void aWaiterThatGaveUpIsNotHandedTheLock() throws Exception {
        RedlockLease held = this.redlock.get().acquire("late", Duration.ofSeconds(10), Duration.ZERO);
        Optional<RedlockLease> gaveUp = this.redlock.get().tryAcquire("late", Duration.ofSeconds(10), Duration.ofMillis(300));
        assertThat(gaveUp).isEmpty();
        CompletableFuture<Optional<RedlockLease>> cancelled = this.redlock.get().tryAcquireAsync("late", Duration.ofSeconds(10),
                Duration.ofSeconds(20));
        cancelled.cancel(false);
        this.nodes.resetStats();
        assertThat(held.release()).isTrue();
        this.nodes.awaitAbsent("redlock:late");
        assertThat(this.redlock.get().heldLeases()).isEmpty();
        long[] calls = this.nodes.lockScriptCalls();
        for (int node = 0; node < 5; node++) {
            assertThat(calls[node]).as("scripts on node %d: the release alone, no handoff and its clean-up", node).isEqualTo(1);
        }
    }

    /**
     * A node that cannot be reached when the lock is handed over gets no handoff, then or later (a handoff sent
     * late would give the key to a token no lease holds): it gets the holder's plain release once it is back.
     */
    @Test
    void aNodeCutOffDuringTheHandoffGetsTheHoldersReleaseWhenItIsBack() throws Exception {
        RedlockLease held = this.redlock.get().acquire("cut", Duration.ofSeconds(20), Duration.ZERO);
        this.nodes.awaitOnAll("redlock:cut", held.token());
        CompletableFuture<Optional<RedlockLease>> waiting = this.redlock.get().tryAcquireAsync("cut", Duration.ofSeconds(20),
                Duration.ofSeconds(20));
        redis.node(4).cutOff();
        RedlockLease next;
        try {
            awaitTrue(Duration.ofSeconds(5), () -> this.redlock.get().nodeStatuses().get(redis.node(4).hostAndPort()).state() == NodeStatus.State.DOWN);
            assertThat(held.release()).as("four of five nodes still held the lease").isTrue();
            next = waiting.join().orElseThrow();
            assertThat(next.isValid()).isTrue();
        }
        finally {
            redis.node(4).heal();
        }
        awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get(4, "redlock:cut") == null); // the owed release, once back
        assertThat(this.nodes.values("redlock:cut").subList(0, 4)).containsOnly(next.token());
        assertThat(next.release()).isTrue();
        this.nodes.awaitAbsent("redlock:cut");
    }

    @Test
    void aChainOfLocalWaitersIsHandedTheLockInArrivalOrder() {
        Redlock local = this.redlock.get();
        RedlockLease first = local.acquire("chain", Duration.ofSeconds(10), Duration.ZERO);
        java.util.List<Integer> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.List<CompletableFuture<Boolean>> done = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int arrival = i;
            done.add(local.tryAcquireAsync("chain", Duration.ofSeconds(10), Duration.ofSeconds(20)).thenComposeAsync((lease) -> {
                order.add(arrival);
                assertThat(this.nodes.values("redlock:chain").stream().filter(lease.orElseThrow().token()::equals).count())
                        .as("nodes holding the lease of waiter %d", arrival).isGreaterThanOrEqualTo(3);
                return lease.get().releaseAsync();
            }));
        }
        assertThat(first.release()).isTrue();
        assertThat(done).allSatisfy((released) -> assertThat(released.join()).isTrue());
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.exists("redlock:chain").contains(true));
    }

    /**
     * A node the holder's acquisition never reached (refused before sending: it was cut off) gets nothing of the
     * lease handed over, not even its release: the handoff was not sent there, so nothing of it can be there.
     */
    @Test
    void aNodeTheHolderNeverReachedGetsNothingOfTheLeaseHandedOver() {
        RedlockLease held;
        CompletableFuture<Optional<RedlockLease>> waiting;
        redis.node(4).cutOff();
        try {
            awaitTrue(Duration.ofSeconds(5), () -> state(4) == NodeStatus.State.DOWN);
            held = this.redlock.get().acquire("apart", Duration.ofSeconds(20), Duration.ZERO);
            waiting = this.redlock.get().tryAcquireAsync("apart", Duration.ofSeconds(20), Duration.ofSeconds(20));
        }
        finally {
            redis.node(4).heal();
        }
        awaitTrue(Duration.ofSeconds(10), () -> state(4) == NodeStatus.State.UP);
        this.nodes.resetStats();
        assertThat(held.release()).isTrue();
        RedlockLease next = waiting.join().orElseThrow();
        assertThat(next.release()).isTrue();
        this.nodes.awaitAbsent("redlock:apart");
        assertThat(this.nodes.lockScriptCalls()[4]).as("scripts on node 4, which neither lease ever reached").isZero();
    }

    @Test
    void aHandoffIsReportedOncePerNodeAsAHandoff() {
        Map<String, AtomicInteger> commands = new ConcurrentHashMap<>();
        RedlockObserver observer = new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                commands.computeIfAbsent(command, (name) -> new AtomicInteger()).incrementAndGet();
            }

        };
        try (Redlock observed = TestSupport.patientBuilder().nodes(redis.uris()).observer(observer).build()) {
            RedlockLease held = observed.acquire("seen", Duration.ofSeconds(10), Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> waiting = observed.tryAcquireAsync("seen", Duration.ofSeconds(10), Duration.ofSeconds(20));
            awaitTrue(Duration.ofSeconds(5), () -> commands.containsKey("set") && commands.get("set").get() == 5);
            commands.clear();
            assertThat(held.release()).isTrue();
            RedlockLease next = waiting.join().orElseThrow();
            awaitTrue(Duration.ofSeconds(5), () -> commands.containsKey("handoff") && commands.get("handoff").get() == 5);
            assertThat(commands.keySet()).as("one Redis command per node, reported once").containsOnly("handoff");
            assertThat(next.release()).isTrue();
        }
    }

    /**
     * The hazard: handoffs within one process keep the key taken for as long as that process has a waiter, so
     * that another process's waiter never finds it free and starves (two clients of 8 threads on one key: one got
     * 1,379 acquisitions to the other's 6,412, and 8 of its waits ran out at 5 s). Where another client waits
     * (subscribed to the lock's channel), the release frees the key and publishes, as without a handoff, and both
     * callers get the lock in turn.
     */
    @Test
    void aWaiterOfAnotherClientMakesTheReleaseFreeTheLockInsteadOfHandingItOver() {
        try (Redlock other = TestSupport.patientBuilder().nodes(redis.uris()).retryDelay(Duration.ofSeconds(2)).build()) {
            RedlockLease held = this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ZERO);
            this.nodes.awaitOnAll("redlock:shared", held.token()); // the acquisition returned at a quorum
            CompletableFuture<Optional<RedlockLease>> remote = other.tryAcquireAsync("shared", Duration.ofSeconds(10), Duration.ofSeconds(20));
            for (int node = 0; node < 5; node++) {
                int subscribed = node;
                awaitTrue(Duration.ofSeconds(5), () -> this.nodes.channels(subscribed).size() == 1); // refused, and listening
            }
            awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.exists("redlock:shared\u00FFwaiting").contains(false)); // and recorded
            CompletableFuture<Optional<RedlockLease>> local = this.redlock.get().tryAcquireAsync("shared", Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            this.nodes.resetStats();
            assertThat(held.release()).isTrue();
            awaitTrue(Duration.ofSeconds(5), () -> java.util.Arrays.stream(this.nodes.publishCalls()).allMatch((calls) -> calls == 1));
            awaitTrue(Duration.ofSeconds(5), () -> remote.isDone() || local.isDone());
            CompletableFuture<Optional<RedlockLease>> first = remote.isDone() ? remote : local;
            CompletableFuture<Optional<RedlockLease>> second = (first == remote) ? local : remote;
            assertThat(first.join().orElseThrow().release()).isTrue();
            assertThat(second.join().orElseThrow().release()).isTrue();
        }
    }

    /**
     * A caller of another client that does not wait (ShedLock's provider, a poller) is refused while the holder's line
     * hands the key on within its JVM: it must count as waiting, or a busy line keeps the lock from it for ever. Its
     * refusal is recorded on the nodes, and the next release frees the key (and publishes) instead of handing it over.
     */
    @Test
    void aRefusedCallerOfAnotherClientThatDoesNotWaitMakesTheReleaseFreeTheLock() {
        assertARefusalOfAnotherClientMakesTheReleaseFreeTheLock("polled", (other) -> other.tryAcquire("polled", Duration.ofSeconds(10)));
    }

    /** The same for a caller of another client that asked for the key together with others (a multi-key lock). */
    @Test
    void aRefusedMultiKeyCallerOfAnotherClientMakesTheReleaseFreeTheLock() {
        assertARefusalOfAnotherClientMakesTheReleaseFreeTheLock("polled-set",
                (other) -> other.tryAcquire(java.util.List.of("polled-set", "free"), Duration.ofSeconds(10)));
    }

    /**
     * Holds {@code key} with a caller of this JVM waiting behind the lease, has another client make one refused
     * attempt, then checks that the release frees the key on every node (one publish each) instead of handing it over.
     */
    private void assertARefusalOfAnotherClientMakesTheReleaseFreeTheLock(String key,
            java.util.function.Function<Redlock, Optional<RedlockLease>> refusedAttempt) {
        try (Redlock other = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            RedlockLease held = this.redlock.get().acquire(key, Duration.ofSeconds(10), Duration.ZERO);
            this.nodes.awaitOnAll("redlock:" + key, held.token()); // the acquisition returned at a quorum
            assertThat(refusedAttempt.apply(other)).as("the other client is refused").isEmpty();
            // The refusal's record is written by the attempt's clean-up, which the caller does not wait for.
            awaitTrue(Duration.ofSeconds(5), () -> !this.nodes.exists("redlock:" + key + "\u00FFwaiting").contains(false));
            CompletableFuture<Optional<RedlockLease>> local = this.redlock.get().tryAcquireAsync(key, Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            this.nodes.resetStats();
            assertThat(held.release()).isTrue();
            awaitTrue(Duration.ofSeconds(5), () -> java.util.Arrays.stream(this.nodes.publishCalls()).allMatch((calls) -> calls == 1));
            assertThat(local.join().orElseThrow().release()).isTrue();
        }
    }

    /**
     * Waiters for other locks that share the release channel (the read-write lock of the same name; the same name in
     * another database: pub/sub spans databases) do not wait for this one: the release still hands it over.
     */
    @Test
    void waitersOfOtherLocksOnTheSameChannelDoNotStopTheHandoff() {
        java.util.List<String> otherDatabase = redis.uris().stream().map((uri) -> uri + "/1").toList();
        try (Redlock readWrite = TestSupport.patientBuilder().nodes(redis.uris()).retryDelay(Duration.ofSeconds(2)).build();
                Redlock elsewhere = TestSupport.patientBuilder().nodes(otherDatabase).retryDelay(Duration.ofSeconds(2)).build();
                Redlock elsewhereWaiter = TestSupport.patientBuilder().nodes(otherDatabase).retryDelay(Duration.ofSeconds(2)).build()) {
            RedlockLease writer = readWrite.tryAcquireWrite("shared", Duration.ofSeconds(20)).orElseThrow();
            CompletableFuture<Optional<RedlockLease>> reader = readWrite.tryAcquireReadAsync("shared", Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            RedlockLease elsewhereHeld = elsewhere.acquire("shared", Duration.ofSeconds(20), Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> elsewhereWaiting = elsewhereWaiter.tryAcquireAsync("shared", Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            for (int node = 0; node < 5; node++) {
                int subscribed = node;
                // Both refused, and listening on the channel of the exclusive lock "shared" of database 0.
                awaitTrue(Duration.ofSeconds(5), () -> this.nodes.subscribers(subscribed, "redlock:shared\u00FFreleased") == 2);
            }
            RedlockLease held = this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> local = this.redlock.get().tryAcquireAsync("shared", Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            this.nodes.resetStats();
            assertThat(held.release()).isTrue();
            RedlockLease next = local.join().orElseThrow();
            this.nodes.awaitValues("redlock:shared", next.token(), next.token(), next.token(), next.token(), next.token());
            assertThat(this.nodes.publishCalls()).as("handed over: nothing published").containsOnly(0L);
            assertThat(next.release()).isTrue();
            assertThat(reader).isNotDone();
            assertThat(elsewhereWaiting).isNotDone();
            writer.release();
            elsewhereHeld.release();
            assertThat(reader.join()).hasValueSatisfying(RedlockLease::release);
            assertThat(elsewhereWaiting.join()).hasValueSatisfying(RedlockLease::release);
        }
    }

    private NodeStatus.State state(int node) {
        return this.redlock.get().nodeStatuses().get(redis.node(node).hostAndPort()).state();
    }

}
