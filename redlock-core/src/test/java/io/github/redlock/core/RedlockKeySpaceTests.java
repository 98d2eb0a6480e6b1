package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis keys each kind of lock uses: the exclusive lock's key is exactly {@code keyPrefix + key} with the
 * token as its value (the layout other Redlock clients use), and no user key, whatever its text, reaches a
 * key of a read-write lock.
 */
class RedlockKeySpaceTests {

    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private Redlock redlock;

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.redlock = Redlock.builder().nodes(redis.uris()).build();
        this.nodes = new NodeInspector(redis.uris());
    }

    @AfterEach
    void tearDown() {
        this.redlock.close();
        this.nodes.close();
    }

    @Test
    void exclusiveLocksOnTheNamesOfAReadWriteLocksPartsDoNotBreakIt() {
        for (String part : new String[] { ":readers", ":writer", ":queued-writers", ":queued-readers", ":queue-expiry" }) {
            RedlockLease exclusive = this.redlock.acquire("doc" + part, TTL, Duration.ZERO);
            RedlockLease reader = this.redlock.tryAcquireRead("doc", TTL).orElseThrow();
            assertThat(reader.release()).as("reader beside %s", part).isTrue();
            RedlockLease writer = this.redlock.tryAcquireWrite("doc", TTL).orElseThrow();
            assertThat(writer.release()).as("writer beside %s", part).isTrue();
            assertThat(exclusive.release()).isTrue();
        }
    }

    @Test
    void aHeldReadWriteLockDoesNotExcludeExclusiveLocksOnAnyName() {
        RedlockLease reader = this.redlock.tryAcquireRead("doc", TTL).orElseThrow();
        RedlockLease writer = this.redlock.tryAcquireWrite("other", TTL).orElseThrow();
        for (String part : new String[] { ":readers", ":writer", ":queued-writers", ":queued-readers", ":queue-expiry" }) {
            assertThat(this.redlock.tryAcquire("doc" + part, TTL)).as("doc%s", part).hasValueSatisfying(RedlockLease::release);
            assertThat(this.redlock.tryAcquire("other" + part, TTL)).as("other%s", part).hasValueSatisfying(RedlockLease::release);
        }
        assertThat(reader.release()).isTrue();
        assertThat(writer.release()).isTrue();
    }

    @Test
    void theReadWriteLocksKeysAreTheKeyAByteNoUserKeyCanContainAndThePartsName() {
        RedlockLease writer = this.redlock.tryAcquireWrite("doc", TTL).orElseThrow();
        this.nodes.awaitOnAll("redlock:doc\u00FFwriter", writer.token());
        assertThat(this.nodes.keys(0, "redlock:doc*")).containsExactly("redlock:doc\u00FFwriter");
        writer.release();
        RedlockLease reader = this.redlock.tryAcquireRead("doc", TTL).orElseThrow();
        assertThat(this.nodes.members(0, "redlock:doc\u00FFreaders")).containsExactly(reader.token());
        reader.release();
    }

    @Test
    void aPlainSetNxFromAnotherRedlockClientExcludesThisOneAndTheReverse() {
        for (int i = 0; i < 5; i++) {
            assertThat(this.nodes.setIfAbsent(i, "redlock:shared", "node-redlock-token", TTL)).isTrue();
        }
        assertThat(this.redlock.tryAcquire("shared", TTL)).isEmpty();
        for (int i = 0; i < 5; i++) {
            this.nodes.delete(i, "redlock:shared");
        }
        RedlockLease lease = this.redlock.acquire("shared", TTL, Duration.ZERO);
        this.nodes.awaitOnAll("redlock:shared", lease.token());
        for (int i = 0; i < 5; i++) {
            assertThat(this.nodes.setIfAbsent(i, "redlock:shared", "node-redlock-token", TTL)).isFalse();
        }
        assertThat(lease.release()).isTrue();
        this.nodes.awaitAbsent("redlock:shared");
    }

}
