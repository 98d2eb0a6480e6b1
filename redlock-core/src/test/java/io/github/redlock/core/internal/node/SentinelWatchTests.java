package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.core.internal.support.Uris;
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
    void aSwitchOfItsMasterCountsWithTheNewMaster() {
        assertThat(this.watch.promotedBy(bytes("+switch-master"), "locks-b 10.0.1.5 6379 10.0.1.6 6380")).isEqualTo("10.0.1.6:6380");
    }

    @Test
    void aSwitchOfAnotherMasterMonitoredByTheSameSentinelsDoesNot() {
        assertThat(this.watch.promotedBy(bytes("+switch-master"), "locks-a 10.0.1.5 6379 10.0.1.6 6379")).isNull();
        assertThat(this.watch.promotedBy(bytes("+switch-master"), "locks-b-2 10.0.1.5 6379 10.0.1.6 6379")).isNull();
        assertThat(this.watch.promotedBy(bytes("+switch-master"), "locks-b")).isNull();
    }

    @Test
    void aPromotionCountsByTheMasterNameAfterTheAt() {
        assertThat(this.watch.promotedBy(bytes("+promoted-slave"), "slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-b 10.0.1.5 6379"))
                .isEqualTo("10.0.1.6:6379");
        assertThat(this.watch.promotedBy(bytes("+promoted-slave"), "slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-a 10.0.1.5 6379")).isNull();
        assertThat(this.watch.promotedBy(bytes("+promoted-slave"), "locks-b")).isNull();
        assertThat(this.watch.promotedBy(bytes("+sdown"), "master locks-b 10.0.1.5 6379")).isNull();
    }

    @Test
    void eachFailoverIsReportedOnceHoweverManySentinelsAnnounceIt() {
        List<String> reported = new ArrayList<>();
        SentinelWatch watch = new SentinelWatch((uri) -> null, NODE, null, reported::add);
        watch.announced(bytes("+promoted-slave"), bytes("slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-b 10.0.1.5 6379"));
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.5 6379 10.0.1.6 6379"));
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.5 6379 10.0.1.6 6379"));
        assertThat(reported).hasSize(1);
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.6 6379 10.0.1.5 6379")); // and back
        assertThat(reported).hasSize(2);
    }

    @Test
    void aSentinelNodeIsNamedByItsMasterNameAndSentinels() {
        assertThat(Uris.nodeName(NODE)).isEqualTo("locks-b@10.0.1.1:26379,10.0.1.2:26380");
        assertThat(Uris.isSentinel(NODE)).isTrue();
        assertThat(Uris.isSentinel(RedisURI.create("redis://10.0.0.1:6379"))).isFalse();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

}
