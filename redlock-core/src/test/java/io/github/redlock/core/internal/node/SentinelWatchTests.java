package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests which sentinel announcements {@link SentinelAnnouncements} takes for a failover of its node's master, how
 * {@link SentinelWatch} works out a majority's confirmation, and how a Sentinel node is named.
 */
class SentinelWatchTests {

    private static final RedisURI NODE = RedisURI.create("redis-sentinel://10.0.1.1:26379,10.0.1.2:26380#locks-b");

    private final SentinelAnnouncements watch = new SentinelAnnouncements((uri) -> null, NODE, null, (announcement) -> { });

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
        SentinelAnnouncements watch = new SentinelAnnouncements((uri) -> null, NODE, null, reported::add);
        watch.announced(bytes("+promoted-slave"), bytes("slave 10.0.1.6:6379 10.0.1.6 6379 @ locks-b 10.0.1.5 6379"));
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.5 6379 10.0.1.6 6379"));
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.5 6379 10.0.1.6 6379"));
        assertThat(reported).hasSize(1);
        watch.announced(bytes("+switch-master"), bytes("locks-b 10.0.1.6 6379 10.0.1.5 6379")); // and back
        assertThat(reported).hasSize(2);
    }

    @Test
    void aMajorityOfTheLatestAnswersConfirmsAServerUntilTheBoundAfterItsOldestQuestionOfTheMajority() {
        SentinelWatch.Confirmation confirmation = confirmationOf(3, answer(100, "a:1"), answer(300, "a:1"), answer(200, "a:1"));
        assertThat(confirmation.address()).isEqualTo("a:1");
        // The second-latest of three: a majority (two) was asked at 200 or later.
        assertThat(confirmation.untilNanos()).isEqualTo(200 + SentinelWatch.CONFIRMATION_BOUND_NANOS);
    }

    @Test
    void aMinorityConfirmsNothingAndAnAnswerNamingAnotherServerReplacesTheSentinelsConfirmation() {
        assertThat(confirmationOf(3, answer(100, "a:1"), null, null)).isEqualTo(SentinelWatch.Confirmation.NONE);
        assertThat(confirmationOf(3, answer(100, "a:1"), answer(110, "b:1"), null)).isEqualTo(SentinelWatch.Confirmation.NONE);
        // After a failover two of three name b: b is confirmed, a no longer is, however fresh its one answer.
        SentinelWatch.Confirmation switched = confirmationOf(3, answer(500, "a:1"), answer(110, "b:1"), answer(120, "b:1"));
        assertThat(switched.address()).isEqualTo("b:1");
        assertThat(switched.untilNanos()).isEqualTo(110 + SentinelWatch.CONFIRMATION_BOUND_NANOS);
    }

    @Test
    void anAnswerThatNamesNoMasterConfirmsNothing() {
        assertThat(confirmationOf(3, answer(100, ""), answer(110, ""), answer(120, ""))).isEqualTo(SentinelWatch.Confirmation.NONE);
        assertThat(confirmationOf(2, answer(100, "a:1"), answer(110, ""))).isEqualTo(SentinelWatch.Confirmation.NONE);
    }

    @Test
    void aConfirmationCountsOnlyForTheServerItNamesAndOnlyUntilItsBound() {
        SentinelWatch watch = new SentinelWatch((uri) -> null, NODE, null, (announcement) -> { }, (named) -> { }, () -> null);
        assertThat(watch.confirms("10.0.1.5:6379")).as("before any answer").isFalse();
        assertThat(watch.unconfirmed("10.0.1.5:6379")).contains("no majority (2 of 2)").contains("10.0.1.5:6379");
    }

    private static SentinelWatch.Confirmation confirmationOf(int sentinels, SentinelWatch.Answer... answers) {
        java.util.concurrent.atomic.AtomicReferenceArray<SentinelWatch.Answer> latest = new java.util.concurrent.atomic.AtomicReferenceArray<>(answers);
        return SentinelWatch.confirmationOf(latest, sentinels / 2 + 1);
    }

    private static SentinelWatch.Answer answer(long sentAtNanos, String address) {
        return new SentinelWatch.Answer(sentAtNanos, address);
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
