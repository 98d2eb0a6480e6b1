package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests which sentinel announcements {@link SentinelWatch} takes for a failover of its node's master, and how a
 * Sentinel node is named.
 */
class SentinelWatchTests {

    private static final RedisURI NODE = RedisURI.create("redis-sentinel://10.0.1.1:26379,10.0.1.2:26380#locks-b");

    private final SentinelWatch watch = new SentinelWatch((uri) -> null, NODE, null, (announcement) -> { });

    @Test
    void aSwitchOfItsMasterCounts() {
        assertThat(this.watch.names(bytes("+switch-master"), "locks-b 10.0.1.5 6379 10.0.1.6 6379")).isTrue();
    }

    @Test
    void aSwitchOfAnotherMasterMonitoredByTheSameSentinelsDoesNot() {
        assertThat(this.watch.names(bytes("+switch-master"), "locks-a 10.0.1.5 6379 10.0.1.6 6379")).isFalse();
        assertThat(this.watch.names(bytes("+switch-master"), "locks-b-2 10.0.1.5 6379 10.0.1.6 6379")).isFalse();
    }

    @Test
    void aPromotionCountsByTheMasterNameAfterTheAt() {
        assertThat(this.watch.names(bytes("+promoted-slave"), "slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-b 10.0.1.5 6379")).isTrue();
        assertThat(this.watch.names(bytes("+promoted-slave"), "slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-a 10.0.1.5 6379")).isFalse();
        assertThat(this.watch.names(bytes("+promoted-slave"), "locks-b")).isFalse();
    }

    @Test
    void aSentinelNodeIsNamedByItsMasterNameAndSentinels() {
        assertThat(RedisNodeClient.nameOf(NODE)).isEqualTo("locks-b@10.0.1.1:26379,10.0.1.2:26380");
        assertThat(RedisNodeClient.isSentinel(NODE)).isTrue();
        assertThat(RedisNodeClient.isSentinel(RedisURI.create("redis://10.0.0.1:6379"))).isFalse();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

}
