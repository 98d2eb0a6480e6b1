package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder whose refreshes of the restart records fail, on three real nodes. The quarantine's rule (docs/safety.md, "The
 * rule, as quorum intersection") holds only while a record of each node's process that a lease was granted through
 * lives on the nodes that a later check reads; records expire two quarantines and a refresh period after their last
 * write. Client A holds {@code k} on nodes 0 and 1 (node 2 holds another client's key at the grant), and from then on
 * A's record writes are refused (its user may no longer {@code EVAL}; its locks run by {@code EVALSHA}) while it extends
 * the lease for longer than its records live. Node 0 then restarts empty, and a new client B, finding no record of
 * node 0's former process, lets it vote at once and takes {@code k} on 0 and 2: two valid leases (the test failed so,
 * "A's lease valid with B's", before a node's vote in A was bounded by its last confirmed record). Now A stops counting
 * a node two quarantines less a max-ttl after the last confirmed write of its record, so its lease is lost before the
 * records expire.
 */
class RedlockRestartRecordsIntegrationTests {

    private static final Duration MAX_TTL = Duration.ofSeconds(2);

    private static final String PASSWORD = "a-password";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @Test
    void aHolderWhoseRecordsCannotBeRefreshedLosesItsLeaseBeforeTheyExpire() {
        for (RedisNode node : List.of(redis.node(0), redis.node(1), redis.node(2))) {
            ServerCommands.call(node, "ACL", "SETUSER", "a", "on", ">" + PASSWORD, "~*", "&*", "+@all");
        }
        List<String> asA = redis.uris().stream().map((uri) -> uri.replace("redis://", "redis://a:" + PASSWORD + "@")).toList();
        try (Redlock a = TestSupport.patientBuilder().nodes(asA).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO).build();
                NodeInspector nodes = new NodeInspector(redis.uris())) {
            awaitTrue(Duration.ofSeconds(20), () -> a.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP));
            nodes.set(2, "redlock:k", "another-client", Duration.ofMillis(1500));
            RedlockLease held = a.acquire("k", MAX_TTL, Duration.ZERO);
            awaitTrue(Duration.ofSeconds(5), () -> held.token().equals(nodes.get(0, "redlock:k")) && held.token().equals(nodes.get(1, "redlock:k")));
            for (RedisNode node : List.of(redis.node(0), redis.node(1), redis.node(2))) {
                ServerCommands.call(node, "ACL", "SETUSER", "a", "-eval");
            }
            // Longer than A's records live: two quarantines (max-ttl, drift and a second, each) and a refresh period.
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            boolean extended = true;
            while (extended && System.nanoTime() < until) {
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
                extended = held.extend(MAX_TTL);
            }
            if (!extended) {
                // The nodes' last confirmations were microseconds apart: whichever lapsed first refused the extension.
                assertThat(a.nodeStatuses().values()).as("the nodes' statuses when the extension was refused")
                        .anySatisfy((status) -> assertThat(status.reason()).contains("could not be confirmed"));
            }
            redis.node(0).restart(); // empty: A's key there is gone
            try (Redlock b = TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(MAX_TTL).restartQuarantine(RestartQuarantine.AUTO).build()) {
                Optional<RedlockLease> second = b.tryAcquire("k", MAX_TTL);
                boolean bothValid = held.isValid() && second.isPresent() && second.get().isValid();
                assertThat(bothValid).as("A's lease valid with B's, taken through node 0 restarted empty after A's records of it expired")
                        .isFalse();
                second.ifPresent(RedlockLease::release);
            }
            assertThat(extended).as("A's extensions stopped before its records expired").isFalse();
        }
    }

}
