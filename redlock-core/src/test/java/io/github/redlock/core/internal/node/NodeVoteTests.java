package io.github.redlock.core.internal.node;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link NodeVote}: a node votes only once checked in the epoch of its current connection, a check that began
 * before a disconnect never lets the next incarnation vote, a node that is not an independent master stays excluded
 * for the rest of its epoch whatever its own check decides, and the refusal says why.
 */
class NodeVoteTests {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private final NodeVote vote = new NodeVote();

    @Test
    void aNewNodeIsUncheckedAndDoesNotVote() {
        assertThat(this.vote.current()).isEqualTo(new NodeVote.State(false, 0, "not checked yet since it connected", 0, false));
        assertThat(this.vote.mayVote()).isFalse();
        assertThat(this.vote.refusal(true)).isEqualTo(NodeReply.notVoting("not checked yet since it connected"));
        assertThat(this.vote.refusal(false)).isEqualTo(NodeReply.notConnected("disconnected"));
    }

    @Test
    void aCheckedNodeVotesFromTheTimeItWasGiven() {
        assertThat(this.vote.voteFrom(0, System.nanoTime() - 1, "")).isTrue();
        assertThat(this.vote.mayVote()).isTrue();
    }

    @Test
    void aQuarantinedNodeVotesLaterAndSaysWhen() {
        assertThat(this.vote.voteFrom(0, System.nanoTime() + HOUR, "restarted 3 s ago")).isTrue();
        assertThat(this.vote.mayVote()).isFalse();
        NodeReply refusal = this.vote.refusal(true);
        assertThat(refusal.outcome()).isEqualTo(NodeReply.Outcome.REJECTED);
        assertThat(refusal.reason()).matches("not voting: restarted 3 s ago \\(votes again in 3[56]\\d{5}\\.\\d ms\\)");
    }

    @Test
    void aCheckThatBeganBeforeADisconnectIsIgnored() {
        this.vote.disconnected();
        assertThat(this.vote.voteFrom(0, System.nanoTime() - 1, "")).isFalse();
        assertThat(this.vote.mayVote()).isFalse();
        assertThat(this.vote.current().epoch()).isEqualTo(1);
        assertThat(this.vote.voteFrom(1, System.nanoTime() - 1, "")).isTrue();
    }

    @Test
    void aDisconnectEndsTheVote() {
        this.vote.voteFrom(0, System.nanoTime() - 1, "");
        this.vote.disconnected();
        assertThat(this.vote.mayVote()).isFalse();
        assertThat(this.vote.current()).isEqualTo(new NodeVote.State(false, 0, "not checked yet since it connected", 1, false));
        assertThat(this.vote.refusal(false)).isEqualTo(NodeReply.notConnected("disconnected"));
    }

    @Test
    void anExcludedNodeStaysOutForTheRestOfItsEpoch() {
        assertThat(this.vote.exclude(0, System.nanoTime() + HOUR, "not an independent master: a replica")).isTrue();
        assertThat(this.vote.voteFrom(0, System.nanoTime() - 1, "")).isFalse();
        assertThat(this.vote.mayVote()).isFalse();
        assertThat(this.vote.current().excluded()).isTrue();
        assertThat(this.vote.refusal(true).reason()).startsWith("not voting: not an independent master: a replica (votes again in ");
    }

    @Test
    void anExclusionAlsoOverridesAVoteAlreadyGiven() {
        this.vote.voteFrom(0, System.nanoTime() - 1, "");
        assertThat(this.vote.exclude(0, System.nanoTime() + HOUR, "listed twice")).isTrue();
        assertThat(this.vote.mayVote()).isFalse();
    }

    @Test
    void anExclusionOfAnEarlierEpochIsIgnoredAndTheNextEpochStartsUnexcluded() {
        this.vote.exclude(0, System.nanoTime() + HOUR, "listed twice");
        this.vote.disconnected();
        assertThat(this.vote.exclude(0, System.nanoTime() + HOUR, "listed twice")).isFalse();
        assertThat(this.vote.current().excluded()).isFalse();
        assertThat(this.vote.voteFrom(1, System.nanoTime() - 1, "")).isTrue();
        assertThat(this.vote.mayVote()).isTrue();
    }

    @Test
    void theRunIdsAreRemembered() {
        assertThat(this.vote.runId()).isNull();
        assertThat(this.vote.seenRunId()).isNull();
        this.vote.seenRunId("b");
        this.vote.runId("a");
        assertThat(this.vote.runId()).isEqualTo("a");
        assertThat(this.vote.seenRunId()).isEqualTo("b");
    }

}
