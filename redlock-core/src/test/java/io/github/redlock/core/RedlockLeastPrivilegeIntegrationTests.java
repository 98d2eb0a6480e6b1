package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole lock run as a Redis user allowed only what the library needs: the {@code ACL SETUSER} line that the
 * production checklist publishes, read from that page itself (docs/production.md), so that the published line is the tested one. Exclusive,
 * read-write, multi-key and fenced locks, a waiter woken by the release message, extension, an operator's revoke, and the
 * restart quarantine with its records all work, and no node logs a single refused command ({@code ACL LOG} stays empty).
 */
class RedlockLeastPrivilegeIntegrationTests {

    private static final String PASSWORD = "redlock-acl-test";

    /** The builder's default retry delay. */
    private static final Duration RETRY_DELAY = Duration.ofMillis(100);

    /** A retry delay after which a grant within a second can only be a release message's doing. */
    private static final Duration SLOW_RETRY_DELAY = Duration.ofSeconds(4);

    private RedisNodes nodes;

    @BeforeEach
    void startNodesWithTheUser() {
        this.nodes = RedisNodes.start(3);
        this.nodes.nodes().forEach(RedlockLeastPrivilegeIntegrationTests::createUser);
    }

    @AfterEach
    void stopNodes() {
        this.nodes.close();
    }

    @Test
    void everyKindOfLockWorksAsTheLeastPrivilegedUserAndNoCommandIsRefused() throws Exception {
        // The second client retries after 2 s or more (a retry delay of 4 s): a grant within 1 s of the release is the
        // release message's doing.
        try (Redlock first = redlock(true, RETRY_DELAY); Redlock second = redlock(true, SLOW_RETRY_DELAY);
                NodeInspector inspector = new NodeInspector(this.nodes.uris())) {
            RedlockLease exclusive = first.acquire("acl:x", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(second.tryAcquire("acl:x", Duration.ofSeconds(10))).isEmpty();
            assertThat(exclusive.extend(Duration.ofSeconds(10))).isTrue();
            CompletableFuture<RedlockLease> waiting = second.acquireAsync("acl:x", Duration.ofSeconds(10), Duration.ofSeconds(20));
            awaitTrue(Duration.ofSeconds(5), () -> !inspector.channels(0).isEmpty()); // refused, and waiting for a release
            // and recorded as waiting on a quorum, where alone a release publishes (the record and the subscription
            // travel on different connections: released before the record landed, nothing woke it, CI of stop 48)
            awaitTrue(Duration.ofSeconds(5), () -> inspector.exists("redlock:acl:x\u00FFwaiting").stream().filter((found) -> found).count() >= 2);
            long released = System.nanoTime();
            assertThat(exclusive.release()).isTrue();
            RedlockLease next = waiting.get();
            assertThat(TestSupport.millisSince(released)).as("ms from the release to the grant, retry delay 4 s").isLessThan(1_000);
            assertThat(next.fencingToken()).isGreaterThan(exclusive.fencingToken());
            assertThat(next.release()).isTrue();

            RedlockLease reader = first.acquireRead("acl:rw", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(second.tryAcquireWrite("acl:rw", Duration.ofSeconds(10))).isEmpty();
            assertThat(reader.extend(Duration.ofSeconds(10))).isTrue();
            assertThat(reader.release()).isTrue();
            Optional<RedlockLease> writer = second.tryAcquireWrite("acl:rw", Duration.ofSeconds(10));
            assertThat(writer).isPresent();
            assertThat(writer.get().release()).isTrue();

            RedlockLease both = first.acquire(List.of("acl:a", "acl:b"), Duration.ofSeconds(10), Duration.ZERO);
            assertThat(second.tryAcquire(List.of("acl:b", "acl:c"), Duration.ofSeconds(10))).isEmpty();
            assertThat(both.extend(Duration.ofSeconds(10))).isTrue();
            assertThat(both.release()).isTrue();

            first.acquire("acl:revoked", Duration.ofSeconds(10), Duration.ZERO);
            // Every node that holds it, at least a quorum (a node's SET may still be on its way when acquire returns).
            assertThat(second.revoke("acl:revoked")).as("an operator's revoke frees it").isGreaterThanOrEqualTo(second.quorum());
            assertThat(second.tryAcquire("acl:revoked", Duration.ofSeconds(10))).isPresent();
        }
        assertNoCommandWasRefused();
    }

    @Test
    void theRestartQuarantineAndItsRecordsWorkAsTheLeastPrivilegedUser() {
        try (Redlock first = redlock(false)) {
            RedlockLease held = first.acquire("acl:restart", Duration.ofSeconds(6), Duration.ZERO);
            RedisNode restarted = this.nodes.node(0);
            restarted.restart();
            createUser(restarted); // the user lives in memory: the restarted server has only the default one
            awaitTrue(Duration.ofSeconds(10), () -> first.nodeStatuses().get(restarted.hostAndPort()).state() == NodeStatus.State.QUARANTINED);
            assertThat(first.nodeStatuses().get(restarted.hostAndPort()).reason()).contains("run_id changed");
            try (Redlock second = redlock(false)) {
                // The records of the restarted node, written on the others as this user, tell a new client too.
                assertThat(second.nodeStatuses().get(restarted.hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED);
                assertThat(second.nodeStatuses().get(restarted.hostAndPort()).reason()).contains("while in use: run_id");
            }
            assertThat(held.release()).isTrue();
        }
        assertNoCommandWasRefused();
    }

    private Redlock redlock(boolean fencing) {
        return redlock(fencing, RETRY_DELAY);
    }

    private Redlock redlock(boolean fencing, Duration retryDelay) {
        List<String> uris = this.nodes.nodes().stream().map((node) -> "redis://redlock:" + PASSWORD + "@" + node.hostAndPort()).toList();
        return TestSupport.patientBuilder().nodes(uris).maxTtl(Duration.ofSeconds(30)).fencing(fencing).retryDelay(retryDelay).build();
    }

    /**
     * No command, key or channel was refused on any node. (A failed authentication is logged too, with the reason
     * {@code auth}: a client that reconnects to a restarted node before the test created the user there.)
     */
    private void assertNoCommandWasRefused() {
        for (RedisNode node : this.nodes.nodes()) {
            assertThat(ServerCommands.aclLog(node)).as("ACL LOG of " + node).doesNotContain("reason, command")
                    .doesNotContain("reason, key").doesNotContain("reason, channel");
        }
    }

    /** Creates the user on a node with the line of docs/production.md, its password replaced by the test's. */
    private static void createUser(RedisNode node) {
        List<String> arguments = new ArrayList<>(ServerCommands.aclLine());
        arguments.replaceAll((argument) -> argument.startsWith(">") ? ">" + PASSWORD : argument);
        assertThat(ServerCommands.call(node, arguments.toArray(String[]::new))).isEqualTo("OK");
    }

}
