package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.Test;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What managed services refuse, on real servers: {@code CONFIG} (renamed away), {@code INFO} (renamed away), and an ACL
 * user without {@code PUBLISH} or without {@code SUBSCRIBE}. Each still works, or fails closed, as the production
 * checklist (docs/production.md) says: without {@code CONFIG} no node counts as durable, so a node that restarted with its data is
 * quarantined all the same; a node without {@code INFO} cannot be checked and never votes, and says why; without
 * {@code PUBLISH} or {@code SUBSCRIBE} waiters are not woken by releases but still take the lock, by retrying.
 */
class RedlockManagedServiceIntegrationTests {

    private static final String[] DURABLE = { "--appendonly", "yes", "--appendfsync", "always" };

    private static final String[] NO_CONFIG = { "--rename-command", "CONFIG", "" };

    @Test
    void withoutConfigLocksWorkAndADurableNodeThatRestartedWithItsDataIsStillQuarantined() {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            for (RedisNode node : nodes.nodes()) {
                node.restart(concat(DURABLE, NO_CONFIG));
            }
            try (Redlock redlock = TestSupport.patientBuilder().nodes(nodes.uris()).maxTtl(Duration.ofSeconds(5)).build()) {
                awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
                RedlockLease lease = redlock.acquire("managed:config", Duration.ofSeconds(5), Duration.ZERO);
                nodes.node(0).restartKeepingData(concat(DURABLE, NO_CONFIG));
                awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeStatuses().get(nodes.node(0).hostAndPort()).state() == NodeStatus.State.QUARANTINED);
                // With CONFIG it would vote at once (it logs every write and kept its marker); without, it cannot say so.
                assertThat(redlock.nodeStatuses().get(nodes.node(0).hostAndPort()).reason()).contains("run_id changed")
                        .doesNotContain("logs every write");
                assertThat(lease.release()).isTrue();
            }
        }
    }

    @Test
    void aNodeWithoutInfoNeverVotesAndSaysWhy() {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            nodes.node(0).restart("--rename-command", "INFO", "");
            // No restart quarantine for the other two: with one node unchecked, a new client reads one other node of the
            // two the check needs, and admits only nodes that have run for a quarantine, which these fresh ones have not.
            // The node without INFO is still checked, and fails closed.
            try (Redlock redlock = TestSupport.patientBuilder().nodes(nodes.uris()).restartQuarantine(RestartQuarantine.NEVER).build()) {
                awaitTrue(Duration.ofSeconds(10), () -> redlock.nodeStatuses().get(nodes.node(0).hostAndPort()).reason().contains("INFO"));
                NodeStatus status = redlock.nodeStatuses().get(nodes.node(0).hostAndPort());
                assertThat(status.state()).isEqualTo(NodeStatus.State.DOWN);
                assertThat(status.reason()).contains("the restart check fails closed").contains("unknown command");
                // Two of three still make a quorum.
                assertThat(redlock.tryAcquire("managed:info", Duration.ofSeconds(5))).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
            }
        }
    }

    @Test
    void withoutPublishAWaiterStillTakesTheLockByRetrying() throws Exception {
        waiterTakesTheLockAsAUserWithout("+publish");
    }

    /** And a warning names a node that refuses SUBSCRIBE, with what to allow (the production checklist, docs/production.md, says so). */
    @Test
    void withoutSubscribeAWaiterStillTakesTheLockByRetrying() throws Exception {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger("io.github.redlock.core.internal.release.ReleaseMessages");
        List<java.util.logging.LogRecord> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {

            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }

        };
        logger.addHandler(handler);
        try {
            waiterTakesTheLockAsAUserWithout("+subscribe");
        }
        finally {
            logger.removeHandler(handler);
        }
        assertThat(warnings).extracting(java.util.logging.LogRecord::getMessage).anySatisfy((message) -> assertThat(message)
                .startsWith("Redis node 127.0.0.1:").contains("refuses SUBSCRIBE on the release channels").contains("allow the user +subscribe"));
    }

    private static void waiterTakesTheLockAsAUserWithout(String refused) throws Exception {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            List<String> line = new ArrayList<>(ServerCommands.aclLine());
            assertThat(line.remove(refused)).as("the production page's line allows " + refused).isTrue();
            line.replaceAll((argument) -> argument.startsWith(">") ? ">pw" : argument);
            for (RedisNode node : nodes.nodes()) {
                assertThat(ServerCommands.call(node, line.toArray(String[]::new))).isEqualTo("OK");
            }
            List<String> uris = nodes.nodes().stream().map((node) -> "redis://redlock:pw@" + node.hostAndPort()).toList();
            try (Redlock first = TestSupport.patientBuilder().nodes(uris).build(); Redlock second = TestSupport.patientBuilder().nodes(uris).build()) {
                RedlockLease held = first.acquire("managed:wait", Duration.ofSeconds(30), Duration.ZERO);
                CompletableFuture<RedlockLease> waiting = second.acquireAsync("managed:wait", Duration.ofSeconds(10), Duration.ofSeconds(20));
                try (NodeInspector inspector = new NodeInspector(nodes.uris())) {
                    // Refused once, and waiting (by retrying, without the refused command): its record of waiting is on the nodes.
                    awaitTrue(Duration.ofSeconds(5), () -> inspector.exists("redlock:managed:wait\u00FFwaiting").contains(true));
                }
                assertThat(waiting).isNotDone();
                assertThat(held.release()).isTrue();
                // Long before the held key's 30 s expiry: the waiter's own retries find the lock free.
                RedlockLease next = waiting.get();
                assertThat(next.release()).isTrue();
                Optional<RedlockLease> again = first.tryAcquire("managed:wait", Duration.ofSeconds(5));
                assertThat(again).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
            }
        }
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = new String[first.length + second.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

}
