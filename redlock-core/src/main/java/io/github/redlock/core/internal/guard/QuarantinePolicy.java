package io.github.redlock.core.internal.guard;

import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.node.ServerInfo;
import org.jspecify.annotations.Nullable;

/**
 * The restart rule of {@code AUTO} and {@code ALWAYS} as a pure function ({@link #judge}): from what a node says of
 * itself, the server process this client saw on it before, the other nodes' records of it and its marker of kept data,
 * whether it votes now or waits, and for how long. It reads no clock, sends nothing and keeps no state, so every rule is
 * checked by unit and property tests; {@link RestartGuard} gathers the inputs and applies the verdict.
 * <p>
 * The rules, in order (docs/safety.md states why each is safe):
 * <ol>
 * <li>A node waits until it has been the master for the longest quarantine recorded for it (never less than this
 * client's): that long after its start, or from now when it was promoted from a replica at a time it does not tell.
 * Once that has passed, no lease that depended on a former process of it can still be valid, and it votes.</li>
 * <li>{@code ALWAYS}: any node that has not been the master that long waits.</li>
 * <li>{@code AUTO}: a node waits only when it restarted while in use: this client saw another {@code run_id} on it, or
 * a record of another {@code run_id} is still within its lifetime. A node no client recorded votes at once.</li>
 * <li>A node that restarted while in use votes at once only when it provably kept what it acknowledged: it logs every
 * write before answering ({@code appendonly yes}, {@code appendfsync always}), is not a promoted replica, and its
 * marker names the server process that ran on it just before this one (the newest other process recorded, or when none
 * is recorded, the one this client saw). A marker is rewritten by each process that votes while durable, so it names
 * the last process that held complete data; one that names the process answering now was set by a client that let it
 * vote. One that arrived by replication names the former master's process, never the promoted replica's: a promoted
 * replica that restarts, however often, stays quarantined.</li>
 * </ol>
 */
final class QuarantinePolicy {

    private QuarantinePolicy() {
    }

    /**
     * The verdict on a node whose records were read.
     * @param mode {@code AUTO} or {@code ALWAYS}
     * @param maxTtlMillis this client's {@code maxTtl}
     * @param quarantineMillis this client's quarantine: its {@code maxTtl}, drift and a second
     * @param info what the node says of itself now
     * @param previous the {@code run_id} this client saw on the node before this check, or null
     * @param records the other nodes' records of the node
     * @param marker the {@code run_id} its kept-data marker named before this check, or null when it has none or did not
     * answer
     * @return whether it votes now, or waits, for how long and why
     */
    static Verdict judge(RestartQuarantine mode, long maxTtlMillis, long quarantineMillis, ServerInfo info, @Nullable String previous,
            NodeRecords records, @Nullable String marker) {
        NodeRecords.Entry longest = records.longest();
        // The record of a client of the fleet whose quarantine is longer than this client's, or null.
        NodeRecords.Entry longer = (longest != null && longest.quarantineMillis() > quarantineMillis) ? longest : null;
        // A promoted replica may lack what its former master acknowledged from the moment it took over, which INFO
        // does not tell: the wait counts from now, not from its start.
        long waitNanos = TimeUnit.MILLISECONDS.toNanos((longer != null) ? longer.quarantineMillis() : quarantineMillis)
                - TimeUnit.SECONDS.toNanos(info.masterForSeconds());
        if (waitNanos <= 0) {
            return Verdict.VOTE;
        }
        String length = (longer != null) ? "; it waits for the longest max-ttl that a client of this prefix recorded for it, a max-ttl of "
                + seconds(longer.maxTtlMillis()) + " (this client's is " + seconds(maxTtlMillis) + ")"
                : "; it waits for this client's max-ttl of " + seconds(maxTtlMillis);
        if (mode == RestartQuarantine.ALWAYS) {
            return Verdict.waitFor(upFor(info) + " (restart-quarantine ALWAYS)" + length, waitNanos);
        }
        NodeRecords.Entry other = records.newestOtherProcess(info.runId());
        boolean changedHere = previous != null && !previous.equals(info.runId());
        String restart = changedHere ? "its run_id changed while this client was connected"
                : (other != null) ? "while in use: run_id " + other.runId() + " was seen on it " + other.ageMillis() + " ms ago" : null;
        if (restart == null) {
            return Verdict.VOTE;
        }
        String before = (other != null) ? other.runId() : previous; // the process that ran just before this one
        if (info.durable() && !info.promoted() && marker != null && marker.equals(before)) {
            return Verdict.voteNoting("restarted " + info.uptimeSeconds() + " s ago (" + restart + ") and votes at once: it logs every "
                    + "write before answering, and came back with the data it had acknowledged as run_id " + marker);
        }
        if (info.durable() && !info.promoted() && marker != null && marker.equals(info.runId())) {
            return Verdict.voteNoting("restarted " + info.uptimeSeconds() + " s ago (" + restart + ") and votes at once: it logs every "
                    + "write before answering, and another client already found its data complete and let this process vote");
        }
        String durable = "";
        if (info.durable() && !info.promoted()) {
            durable = (marker == null) ? "; it logs every write, but came back without the marker written before its restart, so "
                    + "without the data it had acknowledged"
                    : "; it logs every write, but its marker names run_id " + marker + ", not the process that ran before it ("
                    + before + "): a marker that arrived by replication or from an older process proves nothing";
        }
        String restarted = info.promoted() ? "promoted from a replica by a failover (" + restart + "); it may lack writes "
                + "of its former master" : "restarted " + info.uptimeSeconds() + " s ago (" + restart + ")";
        return Verdict.waitFor(restarted + durable + length, waitNanos);
    }

    /** How long the node has been the master, for a message: its uptime, or that it was promoted at an unknown time. */
    private static String upFor(ServerInfo info) {
        return info.promoted() ? "promoted from a replica at a time it does not tell" : "up for only " + info.uptimeSeconds() + " s";
    }

    /** A max-ttl for messages: {@code "60 s"}, or {@code "1500 ms"} when it is not whole seconds. */
    static String seconds(long millis) {
        return (millis % 1000 == 0) ? (millis / 1000) + " s" : millis + " ms";
    }

    /**
     * What a check decided: vote now ({@code quarantine} null), wait for the reason given, or nothing yet.
     * @param decided false when too few nodes answered: the node stays unchecked and is checked again
     * @param quarantine why the node waits, or null when it votes; when undecided, why no decision was made
     * @param waitNanos how much longer the node waits, when it does
     * @param note what to log when it votes although it restarted while in use, or null
     */
    record Verdict(boolean decided, @Nullable String quarantine, long waitNanos, @Nullable String note) {

        static final Verdict VOTE = new Verdict(true, null, 0, null);

        /** It votes now, although it restarted while in use, for the reason given. */
        static Verdict voteNoting(String note) {
            return new Verdict(true, null, 0, note);
        }

        /** It waits {@code waitNanos} for the reason given. */
        static Verdict waitFor(String reason, long waitNanos) {
            return new Verdict(true, reason, waitNanos, null);
        }

        /** No decision yet, and why: the node stays unchecked. */
        static Verdict undecided(String why) {
            return new Verdict(false, why, 0, null);
        }

    }

}
