package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis keys each kind of lock uses: the exclusive lock's key is exactly {@code keyPrefix + key} with the
 * token as its value (the layout other Redlock clients use), and no user key, whatever its text, reaches a
 * key of a read-write lock.
 */
class RedlockKeySpaceIntegrationTests {

    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void exclusiveLocksOnTheNamesOfAReadWriteLocksPartsDoNotBreakIt() {
        for (String part : new String[] { ":readers", ":writer", ":queued-writers", ":queued-readers", ":queue-expiry" }) {
            RedlockLease exclusive = this.redlock.get().acquire("doc" + part, TTL, Duration.ZERO);
            RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
            assertThat(reader.release()).as("reader beside %s", part).isTrue();
            RedlockLease writer = this.redlock.get().tryAcquireWrite("doc", TTL).orElseThrow();
            assertThat(writer.release()).as("writer beside %s", part).isTrue();
            assertThat(exclusive.release()).isTrue();
        }
    }

    @Test
    void aHeldReadWriteLockDoesNotExcludeExclusiveLocksOnAnyName() {
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        RedlockLease writer = this.redlock.get().tryAcquireWrite("other", TTL).orElseThrow();
        for (String part : new String[] { ":readers", ":writer", ":queued-writers", ":queued-readers", ":queue-expiry" }) {
            assertThat(this.redlock.get().tryAcquire("doc" + part, TTL)).as("doc%s", part).hasValueSatisfying(RedlockLease::release);
            assertThat(this.redlock.get().tryAcquire("other" + part, TTL)).as("other%s", part).hasValueSatisfying(RedlockLease::release);
        }
        assertThat(reader.release()).isTrue();
        assertThat(writer.release()).isTrue();
    }

    @Test
    void theReadWriteLocksKeysAreTheKeyThenAByteNoUserKeyCanContainThenThePartsName() {
        RedlockLease writer = this.redlock.get().tryAcquireWrite("doc", TTL).orElseThrow();
        this.nodes.get().awaitOnAll("redlock:doc\u00FFwriter", writer.token());
        assertThat(this.nodes.get().keys(0, "redlock:doc*")).containsExactly("redlock:doc\u00FFwriter");
        writer.release();
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        assertThat(this.nodes.get().members(0, "redlock:doc\u00FFreaders")).containsExactly(reader.token());
        reader.release();
    }

    @Test
    void aPlainSetNxFromAnotherRedlockClientExcludesThisOne() {
        for (int i = 0; i < 5; i++) {
            assertThat(this.nodes.get().setIfAbsent(i, "redlock:shared", "node-redlock-token", TTL)).isTrue();
        }
        assertThat(this.redlock.get().tryAcquire("shared", TTL)).isEmpty();
        for (int i = 0; i < 5; i++) {
            this.nodes.get().delete(i, "redlock:shared");
        }
        assertThat(this.redlock.get().tryAcquire("shared", TTL)).hasValueSatisfying(RedlockLease::release);
    }

    @Test
    void thisClientsLockExcludesAPlainSetNxFromAnotherRedlockClient() {
        RedlockLease lease = this.redlock.get().acquire("shared", TTL, Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:shared", lease.token());
        for (int i = 0; i < 5; i++) {
            assertThat(this.nodes.get().setIfAbsent(i, "redlock:shared", "node-redlock-token", TTL)).isFalse();
        }
        assertThat(lease.release()).isTrue();
        this.nodes.get().awaitAbsent("redlock:shared");
    }

}
