package io.github.redlock.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@code ACL SETUSER} line of docs/production.md, verbatim (its {@code change-me} password included), on every kind of server the
 * library supports: Redis 6.2 (the binary shipped in {@code embedded-redis}, so this one runs everywhere), the
 * {@code redis-server} on the {@code PATH} (Redis 7 in CI) and {@code valkey-server} 8. Each server accepts the line,
 * and the user it creates takes, extends and releases every kind of lock, is woken by a release, and is refused
 * nothing ({@code ACL LOG}). Redis 6.2 gives a new user every channel unless the line says {@code resetchannels}, and
 * then refuses the channel pattern that follows; 7.0 starts from none.
 */
class RedlockAclLineIntegrationTests {

    @Test
    void redis62ShippedWithTheSuiteAcceptsTheLineAndLocksAsItsUser() {
        locksAsTheProductionPagesUser(() -> RedisNode.startShipped(Map.of()), "redis_version:6.2.");
    }

    @Test
    void theRedisServerOnThePathAcceptsTheLineAndLocksAsItsUser() {
        Optional<Path> redis = TestSupport.onPath("redis-server");
        assumeTrue(redis.isPresent(), "no redis-server on the PATH: the shipped Redis 6.2 alone is checked");
        locksAsTheProductionPagesUser(() -> RedisNode.start(redis.get()), "redis_version:");
    }

    @Test
    void valkeyAcceptsTheLineAndLocksAsItsUser() {
        Optional<Path> valkey = TestSupport.onPath("valkey-server");
        Capabilities.assume(Capabilities.VALKEY, valkey.isPresent(), "no valkey-server on the PATH (.ci/run installs it)");
        locksAsTheProductionPagesUser(() -> RedisNode.start(valkey.get()), "valkey_version:");
    }

    private static void locksAsTheProductionPagesUser(Supplier<RedisNode> start, String version) {
        List<RedisNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(start.get());
            }
            List<String> line = ServerCommands.aclLine();
            assertThat(line).contains(">change-me");
            List<String> uris = new ArrayList<>();
            for (RedisNode node : nodes) {
                assertThat(ServerCommands.call(node, "INFO", "server")).contains(version);
                assertThat(ServerCommands.call(node, line.toArray(String[]::new))).as("the production page's line on " + node).isEqualTo("OK");
                uris.add("redis://redlock:change-me@" + node.hostAndPort());
            }
            try (Redlock first = TestSupport.patientBuilder().nodes(uris).fencing(true).build();
                    Redlock second = TestSupport.patientBuilder().nodes(uris).fencing(true).build()) {
                RedlockLease held = first.acquire("acl-line", Duration.ofSeconds(10), Duration.ZERO);
                assertThat(second.tryAcquire("acl-line", Duration.ofSeconds(10))).isEmpty();
                assertThat(held.extend(Duration.ofSeconds(10))).isTrue();
                CompletableFuture<RedlockLease> waiting = second.acquireAsync("acl-line", Duration.ofSeconds(10), Duration.ofSeconds(20));
                assertThat(held.release()).isTrue();
                RedlockLease next = waiting.get(20, TimeUnit.SECONDS);
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
                assertThat(next.release()).isTrue();
                RedlockLease reader = first.acquireRead("acl-line:rw", Duration.ofSeconds(10), Duration.ZERO);
                assertThat(second.tryAcquireWrite("acl-line:rw", Duration.ofSeconds(10))).isEmpty();
                assertThat(reader.release()).isTrue();
                RedlockLease both = second.acquire(List.of("acl-line:a", "acl-line:b"), Duration.ofSeconds(10), Duration.ZERO);
                assertThat(both.release()).isTrue();
            }
            for (RedisNode node : nodes) {
                assertThat(ServerCommands.aclLog(node)).as("ACL LOG of " + node).doesNotContain("reason, command")
                        .doesNotContain("reason, key").doesNotContain("reason, channel");
            }
        }
        catch (Exception ex) {
            throw new AssertionError(ex);
        }
        finally {
            nodes.forEach(RedisNode::close);
        }
    }

}
