package io.github.redlock.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node list of both servers the library supports, on real processes: three Valkey nodes and two Redis nodes, so
 * that no quorum is of one server alone. Every kind of lock, fencing, waiting and the restart quarantine work across
 * them. Runs where both {@code redis-server} and {@code valkey-server} are on the {@code PATH} (CI installs both);
 * skipped with a message elsewhere.
 */
class RedlockMixedServersIntegrationTests {

    private static final List<RedisNode> nodes = new ArrayList<>();

    @BeforeAll
    static void startBothServers() {
        Optional<Path> redis = TestSupport.onPath("redis-server");
        Optional<Path> valkey = TestSupport.onPath("valkey-server");
        Capabilities.assume(Capabilities.VALKEY, redis.isPresent() && valkey.isPresent(),
                "needs redis-server and valkey-server on the PATH (.ci/run installs both)");
        for (int i = 0; i < 3; i++) {
            nodes.add(RedisNode.start(valkey.get()));
        }
        for (int i = 0; i < 2; i++) {
            nodes.add(RedisNode.start(redis.get()));
        }
    }

    @AfterAll
    static void stopServers() {
        nodes.forEach(RedisNode::close);
        nodes.clear();
    }

    @Test
    void theServersAreBothKinds() {
        try (NodeInspector inspector = new NodeInspector(uris())) {
            assertThat(inspector.info(0, "server")).contains("valkey_version:");
            assertThat(inspector.info(4, "server")).doesNotContain("valkey_version:").contains("redis_version:");
        }
    }

    @Test
    void exclusiveReadWriteAndMultiKeyLocksExcludeAcrossBothServers() {
        try (Redlock first = redlock(false); Redlock second = redlock(false)) {
            RedlockLease exclusive = first.acquire("mixed:x", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(second.tryAcquire("mixed:x", Duration.ofSeconds(10))).isEmpty();
            assertThat(exclusive.release()).isTrue();

            RedlockLease reader = first.acquireRead("mixed:rw", Duration.ofSeconds(10), Duration.ZERO);
            Optional<RedlockLease> otherReader = second.tryAcquireRead("mixed:rw", Duration.ofSeconds(10));
            assertThat(otherReader).isPresent();
            assertThat(second.tryAcquireWrite("mixed:rw", Duration.ofSeconds(10))).isEmpty();
            assertThat(reader.release()).isTrue();
            assertThat(otherReader.get().release()).isTrue();
            assertThat(second.tryAcquireWrite("mixed:rw", Duration.ofSeconds(10))).hasValueSatisfying((writer) -> assertThat(writer.release()).isTrue());

            RedlockLease both = first.acquire(List.of("mixed:a", "mixed:b"), Duration.ofSeconds(10), Duration.ZERO);
            assertThat(second.tryAcquire(List.of("mixed:b", "mixed:c"), Duration.ofSeconds(10))).isEmpty();
            assertThat(both.release()).isTrue();
            assertThat(second.tryAcquire(List.of("mixed:b", "mixed:c"), Duration.ofSeconds(10))).hasValueSatisfying((set) -> assertThat(set.release()).isTrue());
        }
    }

    @Test
    void fencingTokensIncreaseAndAWaiterIsWokenByTheRelease() throws Exception {
        // The second client retries after 2 s or more (a retry delay of 4 s): a grant within 1 s of the release is the
        // release message's doing, on Valkey and Redis nodes alike.
        try (Redlock first = redlock(true); Redlock second = TestSupport.patientBuilder().nodes(uris()).maxTtl(Duration.ofSeconds(30))
                .fencing(true).retryDelay(Duration.ofSeconds(4)).build(); NodeInspector inspector = new NodeInspector(uris())) {
            RedlockLease held = first.acquire("mixed:fenced", Duration.ofSeconds(30), Duration.ZERO);
            long token = held.fencingToken();
            CompletableFuture<RedlockLease> waiting = second.acquireAsync("mixed:fenced", Duration.ofSeconds(30), Duration.ofSeconds(20));
            awaitTrue(Duration.ofSeconds(5), () -> !inspector.channels(0).isEmpty() && !inspector.channels(4).isEmpty()); // waiting
            assertThat(waiting).isNotDone();
            long released = System.nanoTime();
            assertThat(held.release()).isTrue();
            RedlockLease next = waiting.get();
            assertThat(TestSupport.millisSince(released)).as("ms from the release to the grant, retry delay 4 s").isLessThan(1_000);
            assertThat(next.fencingToken()).isGreaterThan(token);
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void aValkeyNodeThatRestartedEmptyIsQuarantined() {
        try (Redlock first = redlock(false)) {
            RedlockLease held = first.acquire("mixed:restart", Duration.ofSeconds(6), Duration.ZERO);
            nodes.get(0).restart();
            awaitTrue(Duration.ofSeconds(10), () -> first.nodeStatuses().get(nodes.get(0).hostAndPort()).state() == NodeStatus.State.QUARANTINED);
            assertThat(first.nodeStatuses().get(nodes.get(0).hostAndPort()).reason()).contains("run_id changed");
            assertThat(held.release()).isTrue();
        }
    }

    private static Redlock redlock(boolean fencing) {
        return TestSupport.patientBuilder().nodes(uris()).maxTtl(Duration.ofSeconds(30)).fencing(fencing).build();
    }

    private static List<String> uris() {
        return nodes.stream().map(RedisNode::uri).toList();
    }

}
