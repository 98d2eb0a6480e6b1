package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Fencing tokens on five real nodes: each exclusive or write lease's token is strictly greater than the token
 * of every acquisition of the same key that returned before it began, also when the earlier lease expired
 * unreleased, when the two leases' quorums share only nodes whose counters are behind, and across the restart
 * of a node that loses its counter.
 */
class RedlockFencingIntegrationTests {

    /** The nodes' fencing counter under the default prefix: the prefix, the byte 0xFF, then its name. */
    private static final String COUNTER = "redlock:\u00FFfencing-counter";

    /** A counter above the clock's floor (the server's time in µs) until the year 2128. */
    private static final String AHEAD_OF_THE_CLOCK = "5000000000000000";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, RedlockFencingIntegrationTests::fenced);

    @RegisterExtension
    final RedisClientExtension<NodeInspector> inspector = RedisClientExtension.of(redis, NodeInspector::new);

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.nodes = this.inspector.get();
    }

    @Test
    void twoHundredSequentialAcquisitionsGetStrictlyIncreasingTokens() {
        long previous = 0;
        for (int i = 0; i < 200; i++) {
            try (RedlockLease lease = this.redlock.get().acquire("seq", Duration.ofSeconds(5), Duration.ZERO)) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    void contendedThreadsGetTokensThatIncreaseInGrantOrder() throws Exception {
        assertThat(TestSupport.tokensInGrantOrder(this.redlock.get(), "hot", 8, 15)).hasSize(120).isSortedAccordingTo(Long::compare)
                .doesNotHaveDuplicates();
    }

    @Test
    void anExpiredLeasesTokenIsBelowItsSuccessorsWhenTheirQuorumsShareOnlyNodesWhoseCountersAreBehind() {
        // Counters as earlier leases of other keys may have left them: node 2 ahead of nodes 0 and 1. None is 0:
        // a counter raised to 1 starts again from the clock, which would hide what this test is about.
        String[] counters = { "5", "3", "7", "1", "1" };
        for (int i = 0; i < 5; i++) {
            this.nodes.put(i, COUNTER, counters[i]);
        }
        // The first lease takes nodes 0, 1 and 2 (3 and 4 hold another client's key) and expires unreleased.
        this.nodes.set(3, "redlock:k", "another-client", Duration.ofSeconds(30));
        this.nodes.set(4, "redlock:k", "another-client", Duration.ofSeconds(30));
        RedlockLease first = this.redlock.get().acquire("k", Duration.ofMillis(300), Duration.ZERO);
        this.nodes.awaitValues("redlock:k", first.token(), first.token(), first.token(), "another-client", "another-client");
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get(0, "redlock:k") == null);
        // The second shares only nodes 0 and 1 with it: node 2 holds another client's key now.
        this.nodes.delete(3, "redlock:k");
        this.nodes.delete(4, "redlock:k");
        this.nodes.set(2, "redlock:k", "another-client", Duration.ofSeconds(30));
        try (RedlockLease second = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ZERO)) {
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        }
    }

    @Test
    void aNodeRestartedEmptyBetweenTwoAcquisitionsDoesNotMakeTokensFall() {
        countersAheadOfTheClock();
        long before = tokensWhileNodesThreeAndFourAreCutOff(this.redlock.get());
        redis.node(2).restart();
        awaitTrue(Duration.ofSeconds(10), () -> this.redlock.get().nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.UP);
        cutOffNodesZeroAndOne(this.redlock.get());
        try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
            assertThat(after.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void aClientStartedAfterTheRestartDoesNotGetAFallingTokenEither() {
        long before;
        countersAheadOfTheClock();
        try (Redlock first = fenced(redis.uris())) {
            before = tokensWhileNodesThreeAndFourAreCutOff(first);
        }
        redis.node(2).restart();
        try (Redlock second = fenced(redis.uris())) {
            awaitTrue(Duration.ofSeconds(10), () -> second.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            cutOffNodesZeroAndOne(second);
            try (RedlockLease after = second.acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                assertThat(after.fencingToken()).isGreaterThan(before);
            }
        }
    }

    @Test
    void aNodeRestartedFromAnOldSnapshotHasItsCounterRepairedBeforeItVotes() {
        try {
            redis.node(2).restart("--dbfilename", "old.rdb");
            awaitTrue(Duration.ofSeconds(10), () -> this.redlock.get().nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.UP);
            this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ZERO).release();
            this.nodes.save(2); // a low counter, and the mark of the process about to be replaced
            countersAheadOfTheClock();
            long before = tokensWhileNodesThreeAndFourAreCutOff(this.redlock.get());
            redis.node(2).restart("--dbfilename", "old.rdb");
            assertThat(this.nodes.get(2, COUNTER)).as("the old snapshot's counter").isNotNull();
            awaitTrue(Duration.ofSeconds(10), () -> this.redlock.get().nodeStatuses().get(redis.node(2).hostAndPort()).state() == NodeStatus.State.UP);
            cutOffNodesZeroAndOne(this.redlock.get());
            try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                assertThat(after.fencingToken()).isGreaterThan(before);
            }
        }
        finally {
            redis.node(0).heal();
            redis.node(1).heal();
            redis.node(2).restart(); // empty again, without the snapshot
        }
    }

    /**
     * Every node restarted empty, one after another, faster than a repair settles (a whole fleet redeployed
     * without persistence; the chaos run's two rolling restarts in a row): no node keeps a counter that the others
     * could be repaired from, and to the repair they look like a fresh deployment. Tokens must not fall, neither
     * for the client that saw the restarts nor for one started after them.
     */
    @Test
    void everyNodeRestartedEmptyOneAfterAnotherDoesNotMakeTokensFall() {
        long before = 0;
        for (int i = 0; i < 20; i++) {
            try (RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                before = lease.fencingToken();
            }
        }
        for (int i = 0; i < 5; i++) {
            redis.node(i).restart();
        }
        awaitTrue(Duration.ofSeconds(10), () -> allUp(this.redlock.get()));
        try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
            assertThat(after.fencingToken()).as("the token of the client that saw the restarts").isGreaterThan(before);
        }
        try (Redlock later = fenced(redis.uris())) {
            awaitTrue(Duration.ofSeconds(10), () -> allUp(later));
            try (RedlockLease after = later.acquire("other", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                assertThat(after.fencingToken()).as("the token of a client started after them").isGreaterThan(before);
            }
        }
    }

    /**
     * Every node of the last grant's confirming quorum restarted empty (more than the {@code N - quorum} the
     * repair from the other nodes covers): the nodes left answer counters from before that grant, and the repair
     * must not take them for the floor.
     */
    @Test
    void theNodesThatConfirmedTheLastGrantAllRestartedEmptyDoNotMakeTokensFall() {
        this.nodes.put(3, COUNTER, "1000");
        this.nodes.put(4, COUNTER, "1000");
        long before = tokensWhileNodesThreeAndFourAreCutOff(this.redlock.get());
        for (int i = 0; i < 3; i++) {
            redis.node(i).restart();
        }
        awaitTrue(Duration.ofSeconds(10), () -> allUp(this.redlock.get()));
        try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
            assertThat(after.fencingToken()).isGreaterThan(before);
        }
    }

    /**
     * A counter lost without a restart (deleted by hand, or evicted under an eviction policy that may evict keys
     * without a ttl) goes unnoticed by the repair, as no connection drops; it starts again from the node's clock,
     * above every token given so far.
     */
    @Test
    void aCounterDeletedWithoutARestartStartsAgainFromTheClockSoTokensDoNotFall() {
        // Nodes 3 and 4 far behind, so that a quorum of nodes 2, 3 and 4 has only node 2 to carry the tokens.
        this.nodes.put(3, COUNTER, "1");
        this.nodes.put(4, COUNTER, "1");
        long before = tokensWhileNodesThreeAndFourAreCutOff(this.redlock.get());
        this.nodes.delete(2, COUNTER);
        cutOffNodesZeroAndOne(this.redlock.get());
        try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
            assertThat(after.fencingToken()).isGreaterThan(before);
        }
    }

    /**
     * The limit of the protection, shown as it is: a counter set lower by hand, without a restart, goes unnoticed
     * (no connection drops, and the counter exists).
     */
    @Test
    void aCounterLoweredByHandWithoutARestartGoesUnnoticedAndTokensFall() {
        long before = tokensWhileNodesThreeAndFourAreCutOff(this.redlock.get());
        this.nodes.put(2, COUNTER, "1000");
        this.nodes.put(3, COUNTER, "1000");
        this.nodes.put(4, COUNTER, "1000");
        cutOffNodesZeroAndOne(this.redlock.get());
        try (RedlockLease after = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
            assertThat(after.fencingToken()).as("the hazard of a counter changed by hand").isLessThan(before);
        }
    }

    /**
     * Nodes that no grant ever reached (a fresh deployment) vote as soon as they were checked: the repair waits
     * two seconds of a node's uptime only for grants that may have been under way when it went down, and a
     * counter that a repair itself started from the clock is no sign of one. (A node still waiting when other
     * nodes go away afterwards cannot be repaired from enough of them, and does not vote.)
     */
    @Test
    void aNodeRestartedBeforeAnyGrantVotesWithoutWaitingForGrantsToSettle() {
        try (RedisNodes fresh = RedisNodes.start(5); Redlock redlock = fenced(fresh.uris())) {
            assertThat(redlock.nodeStatuses().values()).as("right after build(), on nodes up for less than two seconds")
                    .allSatisfy((status) -> assertThat(status.state()).isEqualTo(NodeStatus.State.UP));
            fresh.node(4).restart();
            // From the moment the client is connected to the new process, not from the restart: a reconnect on a loaded
            // machine may take its time, and is not what this test measures.
            awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeConnections().get(fresh.node(4).hostAndPort()));
            long reconnected = System.nanoTime();
            awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeStatuses().get(fresh.node(4).hostAndPort()).state() == NodeStatus.State.UP);
            assertThat(TestSupport.millisSince(reconnected)).as("ms from the reconnect until the restarted node votes; waiting to settle "
                    + "takes 2,000").isLessThan(1_500);
        }
    }

    @Test
    void writeLeasesGetIncreasingTokensToo() {
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            try (RedlockLease lease = this.redlock.get().acquireWrite("doc", Duration.ofSeconds(5), Duration.ZERO)) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    void aReadLeaseHasNoFencingToken() {
        try (RedlockLease lease = this.redlock.get().acquireRead("doc", Duration.ofSeconds(5), Duration.ZERO)) {
            assertThatIllegalStateException().isThrownBy(lease::fencingToken).withMessageContaining("write lock");
        }
    }

    @Test
    void withoutFencingTheTokenSaysHowToTurnItOn() {
        try (Redlock plain = TestSupport.patientBuilder().nodes(redis.uris()).build();
                RedlockLease lease = plain.acquire("plain", Duration.ofSeconds(5), Duration.ZERO)) {
            assertThatIllegalStateException().isThrownBy(lease::fencingToken).withMessageContaining("fencing(true)")
                    .withMessageContaining("redlock.fencing=true");
        }
    }

    @Test
    void countersAreOneKeyPerNodeHoweverManyKeysWereLocked() {
        for (int i = 0; i < 500; i++) {
            this.redlock.get().acquire("many:" + i, Duration.ofSeconds(5), Duration.ZERO).release();
        }
        for (int i = 0; i < 5; i++) {
            int node = i;
            awaitTrue(Duration.ofSeconds(5), () -> this.nodes.keys(node, "redlock:many:*").isEmpty());
            assertThat(this.nodes.keys(i, "*")).as("keys on node %d", i).filteredOn((name) -> !name.contains("\u00FFnode:"))
                    .containsExactlyInAnyOrder(COUNTER, "redlock:\u00FFfencing-mark");
        }
    }

    @Test
    void theExclusiveLockKeepsItsPlainLayoutWithFencing() {
        try (RedlockLease lease = this.redlock.get().acquire("layout", Duration.ofSeconds(5), Duration.ZERO)) {
            this.nodes.awaitOnAll("redlock:layout", lease.token());
        }
    }

    /**
     * Puts the counters of nodes 0, 1 and 2 far ahead of the clock (as 10^15 fenced grants would), so that the
     * clock's floor of a counter that starts again cannot keep tokens from falling: only the repair can.
     */
    private void countersAheadOfTheClock() {
        for (int i = 0; i < 3; i++) {
            this.nodes.put(i, COUNTER, AHEAD_OF_THE_CLOCK);
        }
    }

    /** Takes and releases {@code k} twenty times while nodes 3 and 4 are cut off; returns the last token. */
    private long tokensWhileNodesThreeAndFourAreCutOff(Redlock client) {
        redis.node(3).cutOff();
        redis.node(4).cutOff();
        long last = 0;
        for (int i = 0; i < 20; i++) {
            try (RedlockLease lease = client.acquire("k", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                last = lease.fencingToken();
            }
        }
        assertThat(last).isGreaterThanOrEqualTo(20);
        redis.node(3).heal();
        redis.node(4).heal();
        awaitTrue(Duration.ofSeconds(10), () -> client.nodeStatuses().get(redis.node(3).hostAndPort()).state() == NodeStatus.State.UP
                && client.nodeStatuses().get(redis.node(4).hostAndPort()).state() == NodeStatus.State.UP);
        return last;
    }

    private static boolean allUp(Redlock client) {
        return client.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP);
    }

    private static void cutOffNodesZeroAndOne(Redlock client) {
        redis.node(0).cutOff();
        redis.node(1).cutOff();
        awaitTrue(Duration.ofSeconds(10), () -> client.nodeStatuses().get(redis.node(0).hostAndPort()).state() == NodeStatus.State.DOWN
                && client.nodeStatuses().get(redis.node(1).hostAndPort()).state() == NodeStatus.State.DOWN);
    }

    /** A fencing client; the restart quarantine is off, so that these tests see the counters' own protection. */
    private static Redlock fenced(List<String> uris) {
        return TestSupport.patientBuilder().nodes(uris).fencing(true).restartQuarantine(RestartQuarantine.NEVER).build();
    }

}
