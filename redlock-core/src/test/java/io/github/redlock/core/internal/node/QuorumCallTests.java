package io.github.redlock.core.internal.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.ManualTimer;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.guard.Fencing;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests {@link QuorumCall}'s decision, driven by hand: replies recorded as the nodes would send them and the node
 * timeout fired by a {@link ManualTimer}. The call decides as soon as a quorum said yes or more than
 * {@code nodes - quorum} did not, counts each node once, and changes nothing after the decision.
 */
class QuorumCallTests {

    private static final String[] THREE = { "a:6379", "b:6379", "c:6379" };

    private static final String[] FIVE = { "a:6379", "b:6379", "c:6379", "d:6379", "e:6379" };

    private static final long NODE_TIMEOUT = TimeUnit.MILLISECONDS.toNanos(50);

    private final ManualTimer timer = new ManualTimer();

    private final List<String> commands = new ArrayList<>();

    private final RedlockObserver observer = new RedlockObserver() {

        @Override
        public void nodeCommand(String node, String command, String outcome, long nanos) {
            QuorumCallTests.this.commands.add(node + " " + command + " " + outcome);
        }

    };

    @Test
    void theNodeTimeoutIsArmedWhenTheCallStarts() {
        call(THREE);
        assertThat(this.timer.single().delayNanos()).isEqualTo(NODE_TIMEOUT);
    }

    @Test
    void aQuorumOfYesDecidesAtOnce() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.GRANTED);
        assertThat(call.decision()).isNotDone();
        call.record(2, NodeReply.GRANTED);
        assertThat(call.decision()).isCompletedWithValue(true);
        assertThat(call.granted()).isEqualTo(2);
        assertThat(call.allReplies()).isNotDone();
        assertThat(call.elapsedNanos()).isNotNegative();
    }

    @Test
    void moreNoThanNodesMinusQuorumDecidesAtOnce() {
        QuorumCall call = call(FIVE);
        call.record(0, NodeReply.DENIED);
        call.record(1, NodeReply.GRANTED);
        call.record(2, NodeReply.failure(new IllegalStateException("boom")));
        call.record(3, NodeReply.GRANTED);
        assertThat(call.decision()).isNotDone(); // 2 yes, 2 no: the fifth decides
        call.record(4, NodeReply.notConnected("disconnected"));
        assertThat(call.decision()).isCompletedWithValue(false);
    }

    @Test
    void everyKindOfNoCountsAgainstTheQuorum() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.timedOut(NODE_TIMEOUT));
        call.record(1, NodeReply.NOT_SENT);
        assertThat(call.decision()).isCompletedWithValue(false);
    }

    @Test
    void theLastReplyCompletesAllRepliesAndCancelsTheNodeTimeout() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.GRANTED);
        call.record(1, NodeReply.GRANTED);
        call.record(2, NodeReply.DENIED);
        assertThat(call.allReplies()).isDone();
        assertThat(this.timer.single().isCancelled()).isTrue();
    }

    @Test
    void eachNodeCountsOnce() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.GRANTED);
        call.record(0, NodeReply.GRANTED);
        assertThat(call.granted()).isEqualTo(1);
        assertThat(call.decision()).isNotDone();
        call.record(1, NodeReply.DENIED);
        call.record(1, NodeReply.DENIED);
        assertThat(call.decision()).isNotDone();
        assertThat(call.reply(0)).isSameAs(NodeReply.GRANTED);
    }

    @Test
    void aReplyAfterTheDecisionIsRecordedButChangesNothing() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.DENIED);
        call.record(1, NodeReply.DENIED);
        call.record(2, NodeReply.GRANTED);
        assertThat(call.decision()).isCompletedWithValue(false);
        assertThat(call.reply(2)).isSameAs(NodeReply.GRANTED);
        assertThat(call.granted()).isEqualTo(1);
    }

    @Test
    void atTheNodeTimeoutEverySilentNodeTimesOut() throws Exception {
        QuorumCall call = call(THREE);
        call.record(1, NodeReply.GRANTED);
        this.timer.single().fire();
        assertThat(call.decision()).isCompletedWithValue(false);
        assertThat(call.allReplies()).isDone();
        assertThat(call.reply(0)).isEqualTo(NodeReply.timedOut(NODE_TIMEOUT));
        assertThat(call.reply(1)).isSameAs(NodeReply.GRANTED);
        assertThat(call.reply(2)).isEqualTo(NodeReply.timedOut(NODE_TIMEOUT));
    }

    @Test
    void aReplyAfterTheNodeTimeoutIsIgnored() throws Exception {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.GRANTED);
        this.timer.single().fire();
        call.record(1, NodeReply.GRANTED);
        assertThat(call.decision()).isCompletedWithValue(false);
        assertThat(call.granted()).isEqualTo(1);
        assertThat(call.reply(1).outcome()).isEqualTo(NodeReply.Outcome.TIMEOUT);
    }

    @Test
    void theNodeTimeoutAfterAQuorumChangesTheDecisionInNothing() throws Exception {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.GRANTED);
        call.record(1, NodeReply.GRANTED);
        this.timer.single().fire();
        assertThat(call.decision()).isCompletedWithValue(true);
        assertThat(call.allReplies()).isDone();
    }

    @Test
    void aSingleNodeDecidesAlone() {
        QuorumCall yes = call(new String[] { "a:6379" });
        yes.record(0, NodeReply.GRANTED);
        assertThat(yes.decision()).isCompletedWithValue(true);
        QuorumCall no = call(new String[] { "a:6379" });
        no.record(0, NodeReply.DENIED);
        assertThat(no.decision()).isCompletedWithValue(false);
    }

    @Test
    void followUpsGoWhereverTheCommandMayHaveArrived() {
        QuorumCall call = call(FIVE);
        call.record(0, NodeReply.notVoting("quarantined"));
        call.record(1, NodeReply.NOT_SENT);
        call.record(2, NodeReply.timedOut(NODE_TIMEOUT));
        call.record(3, NodeReply.failure(new IllegalStateException("connection reset")));
        assertThat(call.maySetOn(0)).isFalse();
        assertThat(call.maySetOn(1)).isFalse();
        assertThat(call.maySetOn(2)).isTrue();
        assertThat(call.maySetOn(3)).isTrue();
        assertThat(call.maySetOn(4)).isTrue(); // no reply yet: it may be on its way
    }

    @Test
    void answersNameEveryNodesOutcomeInNodeOrder() {
        QuorumCall call = call(FIVE);
        call.record(4, NodeReply.GRANTED);
        call.record(0, NodeReply.DENIED);
        call.record(1, NodeReply.notConnected("disconnected"));
        call.record(3, NodeReply.NOT_SENT);
        assertThat(call.answers()).containsExactly(entry("a:6379", "denied"), entry("b:6379", "rejected"), entry("c:6379", "pending"),
                entry("d:6379", "skipped"), entry("e:6379", "granted"));
    }

    @Test
    void failuresGiveTheReasonOfEveryNodeThatDidNotSayYes() {
        QuorumCall call = call(THREE);
        call.record(2, NodeReply.timedOut(NODE_TIMEOUT));
        call.record(1, NodeReply.GRANTED);
        call.record(0, NodeReply.DENIED);
        assertThat(call.failures()).containsExactly(entry("a:6379", "held by another client"), entry("c:6379", "timed out after 50 ms"));
        assertThat(call.denied()).isEqualTo(1);
    }

    @Test
    void theObserverHearsEveryReplySentOnce() throws Exception {
        QuorumCall call = call(FIVE);
        call.record(0, NodeReply.GRANTED);
        call.record(0, NodeReply.DENIED);
        call.record(1, NodeReply.DENIED);
        call.record(2, NodeReply.NOT_SENT);
        call.record(3, NodeReply.failure(new IllegalStateException("boom")));
        this.timer.single().fire();
        assertThat(this.commands).containsExactly("a:6379 set ok", "b:6379 set ok", "d:6379 set error", "e:6379 set timeout");
    }

    @Test
    void anUnreportedCallTellsNoObserver() {
        QuorumCall call = new QuorumCall(THREE, 2, this.timer, NODE_TIMEOUT, NodeReply.timedOut(NODE_TIMEOUT), "set", null);
        call.record(0, NodeReply.GRANTED);
        call.record(1, NodeReply.GRANTED);
        assertThat(call.decision()).isCompletedWithValue(true);
        assertThat(this.commands).isEmpty();
    }

    @Test
    void theFencingCandidateIsTheLargestCounterOfTheNodesThatGranted() {
        QuorumCall call = call(FIVE);
        call.record(0, NodeReply.counted(17));
        call.record(1, NodeReply.deniedFor(900));
        call.record(2, NodeReply.counted(1_732_000_000_000_042L));
        call.record(3, NodeReply.counted(40));
        assertThat(Fencing.candidate(call, FIVE.length)).isEqualTo(1_732_000_000_000_042L);
        assertThat(Fencing.candidate(call(THREE), THREE.length)).isZero();
    }

    @Test
    void aRetryWaitsUntilAQuorumIsFreeByTheHoldersPttlsCountedFromTheDecision() {
        QuorumCall call = call(FIVE);
        call.record(0, NodeReply.GRANTED); // this attempt's own key: free once its clean-up ran
        call.record(1, NodeReply.deniedFor(100));
        call.record(2, NodeReply.deniedFor(300));
        call.record(3, NodeReply.deniedFor(200)); // the third no decides
        call.record(4, NodeReply.failure(new IllegalStateException("boom"))); // never known to be free
        long decided = call.startNanos() + call.elapsedNanos();
        // Free: a at once, b 101 ms, d 201 ms, c 301 ms after the decision, e never: the third soonest is d.
        assertThat(call.untilQuorumFree(3, decided)).isEqualTo(ms(201));
        assertThat(call.untilQuorumFree(3, decided + ms(150))).isEqualTo(ms(51));
        assertThat(call.untilQuorumFree(3, decided + ms(500))).isZero();
        assertThat(call.untilQuorumFree(4, decided)).isEqualTo(ms(301));
        assertThat(call.untilQuorumFree(5, decided)).as("e never says").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aRefusalWithoutAPttlNeverTellsWhenTheNodeIsFree() {
        QuorumCall call = call(THREE);
        call.record(0, NodeReply.DENIED); // a read-write lock's refusal says nothing of when
        call.record(1, NodeReply.deniedFor(10));
        call.record(2, NodeReply.timedOut(NODE_TIMEOUT));
        assertThat(call.untilQuorumFree(2, call.startNanos() + call.elapsedNanos())).isEqualTo(Long.MAX_VALUE);
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    private QuorumCall call(String[] nodes) {
        return new QuorumCall(nodes, nodes.length / 2 + 1, this.timer, NODE_TIMEOUT, NodeReply.timedOut(NODE_TIMEOUT), "set",
                this.observer);
    }

}
