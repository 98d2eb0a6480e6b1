package io.github.redlock.core.internal.node;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.core.internal.support.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Whether one node may vote: unchecked after each (re)connection until its check (see {@code RestartGuard})
 * lets it vote, at once or after a quarantine. Each state carries the epoch (how many times the connection
 * dropped before) in which its check started, so that a check that began before a disconnect cannot let the
 * node's next incarnation vote unchecked. Also remembers the {@code run_id} the node last answered with.
 */
public final class NodeVote {

    private final AtomicReference<State> state = new AtomicReference<>(State.unchecked(0));

    /** The {@code run_id} the node last answered with in a check that decided, or null. */
    private volatile @Nullable String runId;

    /** The {@code run_id} of the node's latest answer to a check, decided or not, or null. */
    private volatile @Nullable String seenRunId;

    /** The current state: never null, as the reference starts with one and is only ever set to another. */
    public State current() {
        return Objects.requireNonNull(this.state.get());
    }

    /** Whether the node may vote now: checked since it connected, and out of quarantine. */
    public boolean mayVote() {
        State current = current();
        return current.checked() && current.fromNanos() - System.nanoTime() <= 0;
    }

    /**
     * Lets the node vote from {@code fromNanos} ({@link System#nanoTime()}), as checked in {@code epoch};
     * ignored when the connection dropped since.
     * @return whether it was applied
     */
    public boolean voteFrom(long epoch, long fromNanos, String reason) {
        State current = current();
        return current.epoch() == epoch && !current.excluded()
                && this.state.compareAndSet(current, new State(true, fromNanos, reason, epoch, false));
    }

    /**
     * Keeps the node from voting for the rest of {@code epoch}, whatever its own check decides: it is not an
     * independent master.
     * @return whether it was applied (false when the connection dropped since)
     */
    public boolean exclude(long epoch, long untilNanos, String reason) {
        State current;
        do {
            current = current();
            if (current.epoch() != epoch) {
                return false;
            }
        }
        while (!this.state.compareAndSet(current, new State(true, untilNanos, reason, epoch, true)));
        return true;
    }

    /**
     * The check of {@code epoch} could not run to its end (a command refused or unanswered): the node stays unchecked,
     * and says why until a check decides. Ignored once the connection dropped or a check decided.
     */
    public void checkFailed(long epoch, String reason) {
        this.state.updateAndGet((current) -> (current.epoch() == epoch && !current.checked())
                ? new State(false, 0, reason, epoch, false) : current);
    }

    /** The connection dropped: the node may come back as another server process, unchecked. */
    void disconnected() {
        this.state.updateAndGet((current) -> State.unchecked(current.epoch() + 1));
    }

    /** Why an acquisition is refused while the node may not vote. */
    NodeReply refusal(boolean connected) {
        State current = current();
        if (!current.checked()) {
            return connected ? NodeReply.notVoting(current.reason()) : NodeReply.notConnected("disconnected");
        }
        return NodeReply.notVoting(current.reason() + " (votes again in "
                + Durations.millis(Math.max(0, current.fromNanos() - System.nanoTime())) + ")");
    }

    public @Nullable String runId() {
        return this.runId;
    }

    public @Nullable String seenRunId() {
        return this.seenRunId;
    }

    public void seenRunId(String runId) {
        this.seenRunId = runId;
    }

    public void runId(String runId) {
        this.runId = runId;
    }

    /**
     * One state of the vote.
     * @param checked whether the node was checked since it connected
     * @param fromNanos from when ({@link System#nanoTime()}) it votes
     * @param reason why it waits, when it does
     * @param epoch how many times the connection dropped before: a check applies only to its own epoch
     * @param excluded whether the node is not an independent master, which no check of the epoch undoes
     */
    public record State(boolean checked, long fromNanos, String reason, long epoch, boolean excluded) {

        static State unchecked(long epoch) {
            return new State(false, 0, "not checked yet since it connected", epoch, false);
        }

    }

}
