package io.github.redlock.core.internal.node;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule by which a cluster node votes through its view: every master of the view must be confirmed by a majority
 * of the other masters, each with an answer naming this very view to a question sent within the bound; a master never
 * confirms itself, and the confirmation lasts from the oldest answer it needs.
 */
class ClusterConfirmationTests {

    private static final long BOUND = ClusterConfirmation.CONFIRMATION_BOUND_NANOS;

    private static final String VIEW = "a:1=0-5460 b:2=5461-10922 c:3=10923-16383";

    private static final List<String> MASTERS = List.of("a:1", "b:2", "c:3");

    @Test
    void everyMasterConfirmedByBothOthersLastsFromTheOldestAnswerNeeded() {
        Map<String, SentinelWatch.Answer> answers = Map.of("a:1", answer(100, VIEW), "b:2", answer(300, VIEW), "c:3", answer(200, VIEW));
        // a needs b and c (oldest 200), b needs a and c (100), c needs a and b (100): the least is 100.
        assertThat(ClusterConfirmation.confirmedUntil(MASTERS, VIEW, answers)).isEqualTo(100 + BOUND);
    }

    @Test
    void aMasterDoesNotConfirmItselfSoTwoAnswersOfThreeAreNotEnough() {
        // A deposed master cut off with the client still names itself: it must not count for its own shard.
        Map<String, SentinelWatch.Answer> answers = Map.of("a:1", answer(100, VIEW), "b:2", answer(100, VIEW));
        assertThat(ClusterConfirmation.confirmedUntil(MASTERS, VIEW, answers)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void anAnswerNamingAnotherViewDoesNotConfirm() {
        String promoted = "r:4=0-5460 b:2=5461-10922 c:3=10923-16383";
        Map<String, SentinelWatch.Answer> answers = Map.of("a:1", answer(100, VIEW), "b:2", answer(100, promoted), "c:3", answer(100, VIEW));
        assertThat(ClusterConfirmation.confirmedUntil(MASTERS, VIEW, answers)).isEqualTo(Long.MIN_VALUE);
        assertThat(ClusterConfirmation.confirmedUntil(MASTERS, VIEW, Map.of("a:1", answer(100, ""), "b:2", answer(100, VIEW),
                "c:3", answer(100, VIEW)))).as("an unreadable answer").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void withFiveMastersThreeOfTheFourOthersConfirmEach() {
        List<String> five = List.of("a:1", "b:2", "c:3", "d:4", "e:5");
        String view = "five masters";
        Map<String, SentinelWatch.Answer> four = Map.of("a:1", answer(10, view), "b:2", answer(20, view), "c:3", answer(30, view),
                "d:4", answer(40, view));
        // a is confirmed by b, c, d (the third newest: 20), b, c and d each with a among their three (10), e by 20.
        assertThat(ClusterConfirmation.confirmedUntil(five, view, four)).isEqualTo(10 + BOUND);
        Map<String, SentinelWatch.Answer> three = Map.of("b:2", answer(20, view), "c:3", answer(30, view), "d:4", answer(40, view));
        assertThat(ClusterConfirmation.confirmedUntil(five, view, three)).as("b has only c and d").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aClusterOfOneMasterIsNeverConfirmed() {
        assertThat(ClusterConfirmation.confirmedUntil(List.of("a:1"), "a:1=0-16383", Map.of("a:1", answer(1, "a:1=0-16383"))))
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void answersComparedAcrossTheWrapOfTheNanosecondClock() {
        long late = Long.MAX_VALUE - 5;
        long wrapped = late + 20; // negative: sent after late
        Map<String, SentinelWatch.Answer> answers = Map.of("a:1", answer(late, VIEW), "b:2", answer(wrapped, VIEW), "c:3", answer(wrapped, VIEW));
        assertThat(ClusterConfirmation.confirmedUntil(MASTERS, VIEW, answers)).isEqualTo(late + BOUND);
    }

    private static SentinelWatch.Answer answer(long sentAtNanos, String signature) {
        return new SentinelWatch.Answer(sentAtNanos, signature);
    }

}
