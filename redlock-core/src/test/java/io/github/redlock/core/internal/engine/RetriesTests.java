package io.github.redlock.core.internal.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.ManualTimer;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.TestLeases;
import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests {@link Retries}, the retry loop of one acquisition, against a fake engine whose attempts the test completes by
 * hand: the outcome of each attempt (lease, last failure, error), one token across a reader's or writer's attempts, a
 * wake by a release during an attempt or during the wait, the nodes' word on when the holder's key expires, the wait
 * behind a lease of this JVM and its handoff, and a lease that arrives after its caller gave up.
 * <p>
 * {@code Retries} reads {@code System.nanoTime()} and waits on the JDK's delay scheduler, with no seam for a fake clock.
 * These tests therefore only use delays that are either zero (the deadline has passed, or the retry delay is zero) or an
 * hour (the loop must not be waiting on the delay): nothing waits on real time but a hand-off to another thread.
 */
class RetriesTests {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private static final LockType.Keys KEYS = LockType.EXCLUSIVE.keys("redlock:job", null);

    private final FakeEngine engine = new FakeEngine();

    private final CompletableFuture<Attempt> result = new CompletableFuture<>();

    @Test
    void aLeaseOnTheFirstAttemptIsTheResult() throws Exception {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        FakeEngine.Call first = this.engine.next();
        assertThat(first.key()).isEqualTo("job");
        assertThat(first.ttlMillis()).isEqualTo(10_000);
        assertThat(first.waiting()).isTrue();
        assertThat(first.token()).isNull(); // the exclusive lock draws a token per attempt
        RedlockLease lease = lease(HOUR);
        first.outcome().complete(Attempt.acquired(lease));
        assertThat(this.result).isCompleted();
        assertThat(this.result.get().lease()).isSameAs(lease);
        assertThat(this.result.get().attempts()).isEqualTo(1);
    }

    @Test
    void theLastFailureEndsTheLoopWithTheNumberOfAttempts() throws Exception {
        this.engine.retryDelayNanos = 0;
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        this.engine.next().outcome().complete(refused(true));
        this.engine.next().outcome().complete(refused(true));
        this.engine.next().outcome().complete(Attempt.failed(null, "held by another client", false));
        Attempt attempt = this.result.get(5, TimeUnit.SECONDS);
        assertThat(attempt.lease()).isNull();
        assertThat(attempt.problem()).isEqualTo("held by another client");
        assertThat(attempt.attempts()).isEqualTo(3);
        assertThat(attempt.retrying()).isFalse();
    }

    @Test
    void aReaderKeepsOneTokenForAllItsAttempts() throws Exception {
        this.engine.retryDelayNanos = 0;
        Retries retries = retries(LockType.READ, LockType.READ.keys("redlock:doc", null), far(), true);
        retries.start();
        FakeEngine.Call first = this.engine.next();
        first.outcome().complete(refused(true));
        FakeEngine.Call second = this.engine.next();
        assertThat(first.token()).hasSize(22).isEqualTo(second.token());
    }

    @Test
    void anAttemptThatFailsEndsTheLoopWithItsError() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), false);
        retries.run();
        IllegalStateException failure = new IllegalStateException("boom");
        this.engine.next().outcome().completeExceptionally(failure);
        assertThat(this.result).isCompletedExceptionally();
        assertThatExceptionOfType(ExecutionException.class).isThrownBy(this.result::get).withCause(failure);
    }

    @Test
    void anAttemptThatCannotStartEndsTheLoopWithItsError() {
        this.engine.throwing = new IllegalStateException("Redlock is closed");
        retries(LockType.EXCLUSIVE, KEYS, far(), false).run();
        assertThatExceptionOfType(ExecutionException.class).isThrownBy(this.result::get).withCause(this.engine.throwing);
    }

    @Test
    void aClosedLockMakesNoAttempt() {
        this.engine.closed = true;
        retries(LockType.EXCLUSIVE, KEYS, far(), true).start();
        assertThatExceptionOfType(ExecutionException.class).isThrownBy(this.result::get)
                .withCauseInstanceOf(IllegalStateException.class)
                .withMessageContaining("Redlock is closed; build a new one to acquire locks");
        assertThat(this.engine.calls).isEmpty();
        assertThat(this.engine.tracked).hasSize(1).allSatisfy((work) -> assertThat(work).isDone());
    }

    @Test
    void aCallerThatGaveUpMakesNoAttempt() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        this.result.cancel(false);
        retries.run();
        assertThat(this.engine.calls).isEmpty();
    }

    @Test
    void aLeaseThatArrivesAfterItsCallerGaveUpIsReleased() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        FakeEngine.Call first = this.engine.next();
        this.result.cancel(false);
        first.outcome().complete(Attempt.acquired(lease(HOUR)));
        assertThat(this.engine.releases.get()).isEqualTo(1);
        assertThat(this.engine.tracked).as("the release is tracked, so that a close waits for it").isNotEmpty().allSatisfy((work) -> assertThat(work).isDone());
    }

    @Test
    void theWaitForTheNextAttemptListensOnTheNodesAndEndsItsSubscriptionWithTheResult() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        assertThat(this.engine.subscriptions).hasSize(1);
        FakeEngine.FakeSubscription subscription = this.engine.subscriptions.get(0);
        assertThat(subscription.channels).isSameAs(KEYS.channels());
        assertThat(subscription.onNodes).isZero(); // a caller that gets the lock at once costs no subscription on the nodes
        this.engine.next().outcome().complete(refused(true));
        assertThat(subscription.onNodes).isEqualTo(1);
        this.result.cancel(false);
        assertThat(subscription.closed).isTrue();
    }

    @Test
    void aReleaseDuringTheWaitStartsTheNextAttemptAtOnce() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        this.engine.next().outcome().complete(refused(true));
        assertThat(this.engine.calls).hasSize(1); // waits for an hour or a release
        retries.wake(token("other-client"), false);
        assertThat(this.engine.calls).hasSize(2); // on the waking thread
    }

    @Test
    void aReleaseDuringAnAttemptStartsTheNextAttemptRightAfterIt() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        FakeEngine.Call first = this.engine.next();
        retries.wake(token("other-client"), false);
        assertThat(this.engine.calls).hasSize(1);
        first.outcome().complete(refused(true));
        assertThat(this.engine.next()).isNotNull(); // on the common pool, not after the hour's delay
    }

    @Test
    void aLocalReleaseWakesOnceAndTheNodesMessagesOfItAreIgnored() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        this.engine.next().outcome().complete(refused(true));
        retries.wake(token("local"), true);
        this.engine.next().outcome().complete(refused(true));
        retries.wake(token("local"), false); // a node's message of the same release
        assertThat(this.engine.calls).hasSize(2);
        retries.wake(token("another"), false);
        assertThat(this.engine.calls).hasSize(3);
    }

    @Test
    void theNextAttemptComesWhenTheNodesSayAQuorumIsFree() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.start();
        QuorumCall call = call();
        call.record(0, NodeReply.deniedFor(0)); // the holder's key expires now on two of three nodes
        call.record(1, NodeReply.deniedFor(0));
        call.record(2, NodeReply.deniedFor(-1));
        this.engine.next().outcome().complete(Attempt.failed(call, "held by another client", true));
        assertThat(this.engine.next()).isNotNull(); // after about a millisecond, not the retry delay of an hour
    }

    @Test
    void theNextAttemptComesNoLaterThanTheDeadline() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, System.nanoTime() - 1, true);
        retries.start();
        this.engine.next().outcome().complete(refused(true)); // the engine still allows one (a final) attempt
        assertThat(this.engine.next()).isNotNull();
    }

    @Test
    void aCallerWhoseWaitEndedInTheLocalLineFailsWithoutAnAttempt() throws Exception {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.outOfTime();
        assertThat(this.result.get().problem()).isEqualTo("the wait time ended while other callers in this JVM were ahead in line "
                + "for the lock (one held it or tried for it)");
        assertThat(this.result.get().call()).isNull();
        retries.start();
        assertThat(this.engine.calls).isEmpty();
    }

    @Test
    void aCallerBehindAnEndedLeaseAttemptsAtOnce() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        RedlockLease holder = lease(HOUR);
        holder.releaseAsync();
        retries.startBehind(holder);
        assertThat(this.engine.calls).hasSize(1);
        assertThat(this.engine.followed).containsExactly(holder);
    }

    @Test
    void aCallerBehindAValidLeaseWaitsForItsReleaseAndIgnoresOlderOnes() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        RedlockLease holder = lease(HOUR);
        retries.startBehind(holder);
        assertThat(this.engine.calls).isEmpty();
        retries.wake(token("predecessor-of-the-holder"), false);
        assertThat(this.engine.calls).isEmpty();
        retries.wake(token(holder.token()), true);
        assertThat(this.engine.calls).hasSize(1);
        this.engine.next().outcome().complete(Attempt.acquired(lease(HOUR)));
        assertThat(this.engine.unfollowed).containsExactly(holder);
    }

    @Test
    void aWaitingCallerTakesOverOnceAndOnlyWhileItWaits() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.startBehind(lease(HOUR));
        assertThat(retries.takeOver()).isTrue();
        assertThat(retries.takeOver()).isFalse(); // its attempt (the handoff) is under way
        Retries closed = new Retries(this.engine, LockType.EXCLUSIVE, "job", KEYS, 10_000, far(), true, new CompletableFuture<>());
        closed.startBehind(lease(HOUR));
        this.engine.closed = true;
        assertThat(closed.takeOver()).isFalse();
    }

    @Test
    void aCallerThatGaveUpDoesNotTakeOver() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.startBehind(lease(HOUR));
        this.result.cancel(false);
        assertThat(retries.takeOver()).isFalse();
    }

    @Test
    void aHandoffThatGivesTheLeaseIsTheResult() throws Exception {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.startBehind(lease(HOUR));
        assertThat(retries.takeOver()).isTrue();
        RedlockLease lease = lease(HOUR);
        CompletableFuture<Void> underWay = new CompletableFuture<>();
        retries.handedOver(CompletableFuture.completedFuture(Attempt.acquired(lease)), underWay, bytes("handed"));
        assertThat(this.result.get().lease()).isSameAs(lease);
        assertThat(this.result.get().attempts()).isEqualTo(1);
        assertThat(underWay).isDone();
        assertThat(this.engine.calls).isEmpty();
    }

    @Test
    void aFailedHandoffIsFollowedByAnAttemptAtOnce() {
        Retries retries = retries(LockType.EXCLUSIVE, KEYS, far(), true);
        retries.startBehind(lease(HOUR));
        assertThat(retries.takeOver()).isTrue();
        retries.handedOver(CompletableFuture.completedFuture(refused(true)), new CompletableFuture<>(), bytes("handed"));
        assertThat(this.engine.next()).isNotNull();
        retries.wake(token("handed"), false); // its clean-up's release messages are no reason to try again
        assertThat(this.engine.calls).hasSize(1);
    }

    private Retries retries(LockType type, LockType.Keys keys, long deadlineNanos, boolean waiting) {
        return new Retries(this.engine, type, "job", keys, 10_000, deadlineNanos, waiting, this.result);
    }

    private static long far() {
        return System.nanoTime() + HOUR;
    }

    private static Attempt refused(boolean retrying) {
        return Attempt.failed(null, "held by another client", retrying);
    }

    private QuorumCall call() {
        return new QuorumCall(new String[] { "a:1", "b:1", "c:1" }, 2, new ManualTimer(), HOUR, NodeReply.timedOut(HOUR), "set", null);
    }

    /** A lease whose nodes are known to hold its key for {@code validNanos} more, released through the fake engine. */
    private RedlockLease lease(long validNanos) {
        return TestLeases.lease(this.engine, LockType.EXCLUSIVE, "job", validNanos);
    }

    private static ByteBuffer token(String token) {
        return ByteBuffer.wrap(bytes(token));
    }

    private static byte[] bytes(String token) {
        return token.getBytes(StandardCharsets.US_ASCII);
    }

}
