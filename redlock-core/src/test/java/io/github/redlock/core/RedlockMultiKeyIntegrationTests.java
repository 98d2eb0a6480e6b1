package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The lock on several keys at once, on five real nodes: every key or none on each node, one lease for all of
 * them, and exclusion against the single-key lock of each name.
 */
class RedlockMultiKeyIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> other = RedisClientExtension.of(redis,
            (uris) -> TestSupport.patientBuilder().nodes(uris).retryDelay(Duration.ofSeconds(2)).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void aLockOnSeveralKeysSetsEveryKeyToOneTokenOnEveryNode() {
        RedlockLease lease = this.redlock.get().acquire(List.of("acct:2", "acct:1"), Duration.ofSeconds(10), Duration.ZERO);
        assertThat(lease.keys()).containsExactly("acct:1", "acct:2");
        assertThat(lease.key()).isEqualTo("acct:1,acct:2");
        this.nodes.get().awaitOnAll("redlock:acct:1", lease.token());
        this.nodes.get().awaitOnAll("redlock:acct:2", lease.token());
        for (int i = 0; i < redis.nodes().size(); i++) {
            assertThat(this.nodes.get().pttl(i, "redlock:acct:2")).as("ttl of the second key on node " + i).isBetween(1L, 10_000L);
        }
        assertThat(lease.release()).isTrue();
        this.nodes.get().awaitAbsent("redlock:acct:1");
        this.nodes.get().awaitAbsent("redlock:acct:2");
    }

    @Test
    void aKeyHeldAloneKeepsTheWholeSetOutAndNoNodeTakesPartOfIt() {
        RedlockLease single = this.other.get().acquire("pair:b", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(this.redlock.get().tryAcquire(List.of("pair:a", "pair:b"), Duration.ofSeconds(10))).isEmpty();
        assertThat(this.nodes.get().exists("redlock:pair:a")).as("the free key of the set, on each node").containsOnly(false);
        single.release();
        assertThat(this.redlock.get().tryAcquire(List.of("pair:a", "pair:b"), Duration.ofSeconds(10))).isPresent();
    }

    @Test
    void aHeldSetKeepsTheSingleKeyLockOfEachOfItsKeysOut() {
        RedlockLease set = this.redlock.get().acquire(List.of("set:a", "set:b", "set:c"), Duration.ofSeconds(10), Duration.ZERO);
        for (String key : set.keys()) {
            assertThat(this.other.get().tryAcquire(key, Duration.ofSeconds(10))).as(key).isEmpty();
        }
        assertThat(this.other.get().tryAcquire(List.of("set:c", "set:d"), Duration.ofSeconds(10))).as("an overlapping set").isEmpty();
        assertThat(this.nodes.get().exists("redlock:set:d")).as("the overlapping set's own key").containsOnly(false);
    }

    @Test
    void anAttemptThatFailsOnAMajorityLeavesNoKeyOfItsSetOnAnyNode() {
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:split:b", "someone-else", Duration.ofSeconds(30));
        }
        // Nodes 3 and 4 grant the whole set, nodes 0 to 2 refuse it: no quorum, and the clean-up removes both keys.
        assertThat(this.redlock.get().tryAcquire(List.of("split:a", "split:b"), Duration.ofSeconds(10))).isEmpty();
        this.nodes.get().awaitAbsent("redlock:split:a");
        assertThat(this.nodes.get().values("redlock:split:b")).containsExactly("someone-else", "someone-else", "someone-else", null, null);
    }

    /**
     * The hazard: a failed attempt on several keys whose clean-up could not reach a node that set them (cut off in
     * between) left them there for their whole ttl when the caller was to try again, while an exclusive attempt's
     * clean-up is kept and sent once the node is back. Nodes 0 to 2 hold one of the keys for someone else and are
     * frozen, so that the attempt's outcome waits until node 4, which set both keys, is cut off; their refusals
     * then fail the attempt. The caller's next attempt is a minute away (its retry delay, the holder's ttl) and given
     * up before node 4 is back, so that only the owed clean-up can free the keys there.
     */
    @Test
    void aCleanUpBeforeARetryThatANodeMissedIsSentWhenItIsBack() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:owed:b", "someone-else", Duration.ofSeconds(60));
        }
        try (Redlock waiting = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(20)).retryDelay(Duration.ofMinutes(2))
                .build()) {
            CompletableFuture<Optional<RedlockLease>> acquisition;
            for (int i = 0; i < 3; i++) {
                redis.node(i).pause();
            }
            try {
                acquisition = waiting.tryAcquireAsync(List.of("owed:a", "owed:b"), Duration.ofSeconds(30), Duration.ofSeconds(60));
                TestSupport.awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get().get(3, "redlock:owed:b") != null
                        && this.nodes.get().get(4, "redlock:owed:b") != null);
                redis.node(4).cutOff();
                TestSupport.awaitTrue(Duration.ofSeconds(10), () -> !waiting.nodeConnections().get(redis.node(4).hostAndPort()));
            }
            finally {
                for (int i = 0; i < 3; i++) {
                    redis.node(i).resume();
                }
            }
            try {
                // Refused by nodes 0 to 2: the attempt failed, and its clean-up went to every node it reached.
                TestSupport.awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get().get(3, "redlock:owed:a") == null);
                acquisition.cancel(false);
            }
            finally {
                redis.node(4).heal();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!this.nodes.get().keys(4, "redlock:owed:*").isEmpty() && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertThat(this.nodes.get().keys(4, "redlock:owed:*")).as("keys of the failed attempt on node 4, 15 s after it was back")
                    .isEmpty();
        }
    }

    /**
     * The hazard of owing a clean-up before a retry: arriving late, it must delete nothing that a later attempt of
     * the same caller set, which is why each attempt on several keys has a token of its own. The first attempt is
     * held undecided (nodes 0 to 2, which hold one key for someone else, frozen) while its token is read on node 3;
     * once it has failed, the other holder's keys go and the caller gets the lock; then the first attempt's clean-up,
     * run again on every node as a late one would be, leaves the lease's keys alone.
     */
    @Test
    void aLateCleanUpOfAFailedAttemptLeavesTheLeaseOfALaterAttemptAlone() throws Exception {
        for (int i = 0; i < 3; i++) {
            this.nodes.get().put(i, "redlock:late:b", "someone-else");
        }
        try (Redlock waiting = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(20)).build()) {
            CompletableFuture<Optional<RedlockLease>> acquisition;
            String first;
            for (int i = 0; i < 3; i++) {
                redis.node(i).pause();
            }
            try {
                acquisition = waiting.tryAcquireAsync(List.of("late:a", "late:b"), Duration.ofSeconds(30), Duration.ofSeconds(30));
                TestSupport.awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get().get(3, "redlock:late:a") != null);
                first = this.nodes.get().get(3, "redlock:late:a");
            }
            finally {
                for (int i = 0; i < 3; i++) {
                    redis.node(i).resume();
                }
            }
            TestSupport.awaitTrue(Duration.ofSeconds(10), () -> this.nodes.get().get(3, "redlock:late:a") == null); // cleaned up
            for (int i = 0; i < 3; i++) {
                this.nodes.get().delete(i, "redlock:late:b");
            }
            RedlockLease lease = acquisition.get(30, TimeUnit.SECONDS).orElseThrow();
            for (int i = 0; i < redis.nodes().size(); i++) {
                for (String key : List.of("redlock:late:a", "redlock:late:b")) {
                    this.nodes.get().eval(i, LuaScript.RELEASE_MULTI.body(), key, first);
                }
            }
            assertThat(this.nodes.get().values("redlock:late:a").stream().filter(lease.token()::equals).count())
                    .as("nodes that hold the lease's first key after the first attempt's clean-up came again").isGreaterThanOrEqualTo(3);
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void duplicateKeysCountOnceAndOneKeyIsThePlainLockOfIt() {
        RedlockLease lease = this.redlock.get().acquire(Arrays.asList("dup:a", "dup:b", "dup:a"), Duration.ofSeconds(10), Duration.ZERO);
        assertThat(lease.keys()).containsExactly("dup:a", "dup:b");
        RedlockLease one = this.redlock.get().acquire(List.of("dup:c", "dup:c"), Duration.ofSeconds(10), Duration.ZERO);
        assertThat(one.key()).isEqualTo("dup:c");
        assertThat(one.keys()).containsExactly("dup:c");
        assertThat(this.other.get().tryAcquire("dup:c", Duration.ofSeconds(10))).isEmpty();
    }

    @Test
    void anExtensionRaisesEveryKeyAndAKeyTakenFromAMajorityLosesTheLease() {
        RedlockLease lease = this.redlock.get().acquire(List.of("ext:a", "ext:b"), Duration.ofSeconds(5), Duration.ZERO);
        assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        for (int i = 0; i < redis.nodes().size(); i++) {
            // An extension returns once a quorum answered: a node's may still be on its way (after its SET, on its connection).
            int node = i;
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().pttl(node, "redlock:ext:a") > 10_000L
                    && this.nodes.get().pttl(node, "redlock:ext:b") > 10_000L);
        }
        for (int i = 0; i < 3; i++) {
            this.nodes.get().set(i, "redlock:ext:b", "someone-else", Duration.ofSeconds(30));
        }
        assertThat(lease.extend(Duration.ofSeconds(20))).as("an extension while a majority lost one key").isFalse();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.lost()).isDone();
        assertThat(this.nodes.get().pttl(3, "redlock:ext:a")).as("a node that still holds the set").isGreaterThan(10_000L);
    }

    @Test
    void aWaiterForASetGetsItAtOnceWhenAnyHeldKeyOfItIsReleased() throws Exception {
        RedlockLease held = this.redlock.get().acquire("wake:b", Duration.ofSeconds(30), Duration.ZERO);
        // The waiter's retry delay is 2 s: only the release message can wake it sooner.
        CompletableFuture<Optional<RedlockLease>> waiting = this.other.get().tryAcquireAsync(List.of("wake:a", "wake:b"),
                Duration.ofSeconds(10), Duration.ofSeconds(10));
        // Refused, and listening on the nodes for a release of either key.
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().channels(0).size() == 2);
        // The release publishes where the refusal is on record.
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists("redlock:wake:b\u00FFwaiting").get(0));
        long released = System.nanoTime();
        held.release();
        Optional<RedlockLease> lease = waiting.get(10, TimeUnit.SECONDS);
        assertThat(lease).isPresent();
        assertThat(TestSupport.millisSince(released)).as("ms from the release to the grant").isLessThan(1_000);
    }

    @Test
    void transfersBetweenAccountsFromManyThreadsNeverOverlapAndNeverDeadlock() throws Exception {
        int accounts = 5;
        int threads = 8;
        int transfersEach = 25;
        AtomicIntegerArray inUse = new AtomicIntegerArray(accounts);
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                Redlock client = (t % 2 == 0) ? this.redlock.get() : this.other.get(); // two clients, as two instances
                workers.add(pool.submit(() -> {
                    for (int n = 0; n < transfersEach; n++) {
                        int from = ThreadLocalRandom.current().nextInt(accounts);
                        int to = (from + 1 + ThreadLocalRandom.current().nextInt(accounts - 1)) % accounts;
                        try (RedlockLease lease = client.acquire(List.of("acct:" + from, "acct:" + to), Duration.ofSeconds(5),
                                Duration.ofSeconds(30))) {
                            if (inUse.getAndIncrement(from) != 0 | inUse.getAndIncrement(to) != 0) {
                                overlaps.incrementAndGet();
                            }
                            Thread.sleep(1);
                            inUse.decrementAndGet(from);
                            inUse.decrementAndGet(to);
                            assertThat(lease.isValid()).isTrue();
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS); // a deadlock would end here, not in a hang
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).as("transfers that found one of their accounts in use").isZero();
        assertThat(done.get()).isEqualTo(threads * transfersEach);
        for (int i = 0; i < accounts; i++) {
            this.nodes.get().awaitAbsent("redlock:acct:" + i);
        }
    }

    @Test
    void aFencedSetGetsATokenAboveThoseOfItsKeysBefore() {
        try (Redlock fenced = TestSupport.patientBuilder().nodes(redis.uris()).fencing(true).build()) {
            RedlockLease first = fenced.acquire("fence:a", Duration.ofSeconds(10), Duration.ZERO);
            long before = first.fencingToken();
            first.release();
            RedlockLease set = fenced.acquire(List.of("fence:a", "fence:b"), Duration.ofSeconds(10), Duration.ZERO);
            assertThat(set.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void anEmptyOrBlankListOfKeysIsRefusedByName() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire((List<String>) null, Duration.ofSeconds(1)))
                .withMessageContaining("keys");
        assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire(List.of(), Duration.ofSeconds(1)))
                .withMessageContaining("keys must name at least one key");
        assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire(Arrays.asList("a", " "), Duration.ofSeconds(1)))
                .withMessageContaining("keys[1]");
    }

}
