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

    /**
     * A yes to an acquisition sent while the node voted but answered after the connection dropped and came back:
     * it may come from a restarted, unchecked server, so it counts as an error, not a vote (an error, not a
     * rejection, so that the clean-up still goes to the node).
     */
    NodeReply acrossReconnect(long epoch, NodeReply reply) {
        if (reply.granted() && current().epoch() != epoch) {
            return new NodeReply(NodeReply.Outcome.ERROR, "error: answered after the connection dropped and came back");
        }
        return reply;
    }

    /** The current state: never null, as the reference starts with one and is only ever set to another. */
    public State current() {
        return Objects.requireNonNull(this.state.get());
    }

    /**
     * Whether this client's record of the voting process must be confirmed lately for the node to vote ({@code AUTO}):
     * set once, before the first check.
     */
    private volatile boolean recordsRequired;

    /** The process whose record was last confirmed on enough other nodes, and until when that lets the node vote. */
    private volatile @Nullable Recorded recorded;

    /** Whether the node may vote now: checked since it connected, out of quarantine, and its record confirmed lately. */
    public boolean mayVote() {
        State current = current();
        long now = System.nanoTime();
        return current.checked() && current.fromNanos() - now <= 0 && recordedAt(now);
    }

    /**
     * From now on the node votes only while this client's record of its server process was confirmed lately
     * ({@link #recordedUntil}): the restart check of {@code AUTO} reads those records, which expire.
     */
    public void requireRecords() {
        this.recordsRequired = true;
    }

    /**
     * This client's record of {@code runId} was confirmed on enough other nodes: the node may vote through that
     * process until {@code untilNanos} ({@link System#nanoTime()}), unless a later confirmation extends it.
     */
    public void recordedUntil(String runId, long untilNanos) {
        Recorded before = this.recorded;
        if (before == null || !before.runId().equals(runId) || untilNanos - before.untilNanos() > 0) {
            this.recorded = new Recorded(runId, untilNanos);
        }
    }

    /**
     * Whether the node's record lets it vote now: always where none is required, else while the last confirmation of the
     * record of the process it answers as ({@link #runId()}) lasts. Extensions ask it too.
     */
    public boolean recordedNow() {
        return recordedAt(System.nanoTime());
    }

    private boolean recordedAt(long now) {
        if (!this.recordsRequired) {
            return true;
        }
        Recorded current = this.recorded;
        return current != null && current.untilNanos() - now > 0 && current.runId().equals(this.runId);
    }

    /** Why the node's record does not let it vote now, for refusals and its status. */
    public String unrecorded() {
        return "this client's record of its server process could not be confirmed on enough other nodes lately (refreshes "
                + "of the restart records fail), and those records expire: a client that checks it after a restart might not "
                + "find them";
    }

    /** A process whose record was confirmed, and until when that lets the node vote. */
    private record Recorded(String runId, long untilNanos) {
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
        if (current.fromNanos() - System.nanoTime() <= 0 && !recordedNow()) {
            return NodeReply.notVoting(unrecorded());
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
