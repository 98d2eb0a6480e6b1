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
 * is recorded, the one this client saw), on the same server (address) as the one answering now. A marker is rewritten by
 * each process that votes while durable, so it names
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
     * @param marker its kept-data marker as it was before this check, {@code run_id@server}, or null when it has none or did
     * not answer
     * @param server the server (address) that answered the check, which a marker must name
     * @return whether it votes now, or waits, for how long and why
     */
    static Verdict judge(RestartQuarantine mode, long maxTtlMillis, long quarantineMillis, ServerInfo info, @Nullable String previous,
            NodeRecords records, @Nullable String marker, String server) {
        Wait wait = Wait.of(info, records, maxTtlMillis, quarantineMillis);
        long waitNanos = wait.nanos();
        if (waitNanos <= 0) {
            return Verdict.VOTE;
        }
        String length = wait.length();
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
        if (info.durable() && !info.promoted() && marker != null && marker.equals(markerOf(before, server))) {
            return Verdict.voteNoting("restarted " + info.uptimeSeconds() + " s ago (" + restart + ") and votes at once: it logs every "
                    + "write before answering, and came back with the data it had acknowledged as run_id " + before);
        }
        if (info.durable() && !info.promoted() && marker != null && marker.equals(markerOf(info.runId(), server))) {
            return Verdict.voteNoting("restarted " + info.uptimeSeconds() + " s ago (" + restart + ") and votes at once: it logs every "
                    + "write before answering, and another client already found its data complete and let this process vote");
        }
        String durable = "";
        if (info.durable() && !info.promoted()) {
            durable = (marker == null) ? "; it logs every write, but came back without the marker written before its restart, so "
                    + "without the data it had acknowledged"
                    : "; it logs every write, but its marker names " + marker + ", not the process that ran before it on this server ("
                    + markerOf(before, server) + "): a marker that arrived by replication, from another server or from an older "
                    + "process proves nothing";
        }
        String restarted = info.promoted() ? "promoted from a replica by a failover (" + restart + "); it may lack writes "
                + "of its former master" : "restarted " + info.uptimeSeconds() + " s ago (" + restart + ")";
        return Verdict.waitFor(restarted + durable + length, waitNanos);
    }

    /**
     * The verdict of a check that read the other nodes. {@code ALWAYS} needs no reader: {@link #judge} by the node's
     * uptime. {@code AUTO} judges only when at least {@code readersNeeded} trusted nodes answered ({@link
     * #trustedReader}), since only then do the nodes read share one with every set that a holder's client confirmed its
     * record on. With fewer, whether the node restarted while in use cannot be told, nor how long the longest-lived
     * client of the fleet needs it out: the check is undecided, the node does not vote, and it is checked again.
     * @param mode {@code AUTO} or {@code ALWAYS}
     * @param maxTtlMillis this client's {@code maxTtl}
     * @param quarantineMillis this client's quarantine
     * @param info what the node says of itself now
     * @param previous the {@code run_id} this client saw on the node before this check, or null
     * @param records the node's records, from every other node that answered
     * @param marker its kept-data marker as it was before this check, or null
     * @param server the server (address) that answered the check
     * @param trustedReaders how many trusted nodes answered the read of its records
     * @param readersNeeded {@link #readersNeeded} of the node count
     * @return whether it votes now, or waits, for how long and why, or is undecided and why
     */
    static Verdict check(RestartQuarantine mode, long maxTtlMillis, long quarantineMillis, ServerInfo info, @Nullable String previous,
            NodeRecords records, @Nullable String marker, String server, int trustedReaders, int readersNeeded) {
        if (mode == RestartQuarantine.AUTO && trustedReaders < readersNeeded) {
            return Verdict.undecided("its restart records could be read from only " + trustedReaders + " other node(s) that did not "
                    + "themselves restart while in use, of the " + readersNeeded + " the check needs (nodes down, unreachable or restarted, "
                    + "or an ACL that refuses the scripts' commands): a record that a holder's client wrote may be on the others; "
                    + "checked again shortly");
        }
        return judge(mode, maxTtlMillis, quarantineMillis, info, previous, records, marker, server);
    }

    /**
     * A Sentinel or cluster node's verdict, its wait counted from now (a check that follows a majority of the sentinels
     * naming the server, or of the other masters confirming the view) rather than from the server's start, and longer by
     * the bound of those confirmations: a client cut off with a deposed master counts it until at most that bound after a
     * majority switched, and its lease lives a max-ttl more (docs/nodes.md, "A deposed master"). A vote or an undecided
     * check is left as it is.
     * @param verdict the verdict by the server's start
     * @param info what the server says of itself: how long it has been the master
     * @param confirmationNanos the bound of the confirmations
     * @return the verdict to apply
     */
    static Verdict fromConfirmation(Verdict verdict, ServerInfo info, long confirmationNanos) {
        if (!verdict.decided() || verdict.quarantine() == null) {
            return verdict;
        }
        long nanos = verdict.waitNanos() + TimeUnit.SECONDS.toNanos(info.masterForSeconds()) + confirmationNanos;
        return Verdict.waitFor(verdict.quarantine() + "; a Sentinel group's or cluster's server waits from the moment a majority of "
                + "its group confirmed it, " + TimeUnit.NANOSECONDS.toMillis(confirmationNanos) + " ms longer", nanos);
    }

    /**
     * How many other nodes must confirm a client's record of a node's server process before the node votes in that
     * client: {@code floor(N / 2)}, as many as a quorum that includes the node holds besides it, so that a node is
     * admitted while a minority of the nodes is down.
     * @param nodes how many nodes the lock has
     * @return the confirmations needed
     */
    static int recordsToConfirm(int nodes) {
        return nodes / 2;
    }

    /**
     * How many other nodes that may be trusted ({@link #trustedReader}) a check must read a node's records from:
     * {@code N - floor(N / 2)}, so that with {@link #recordsToConfirm} they are more than the {@code N - 1} other
     * nodes, and every set a check reads shares a node with every set a record was confirmed on. A single node has no
     * other to read.
     * @param nodes how many nodes the lock has
     * @return the readers needed
     */
    static int readersNeeded(int nodes) {
        return (nodes < 2) ? 0 : nodes - nodes / 2;
    }

    /**
     * Whether a node's answer to a read of another node's records counts toward {@link #readersNeeded}: it answered
     * as a master, and nothing shows that it restarted while in use within its quarantine (or was promoted), after which
     * it may lack records that were confirmed on it. Its own records, read from every node that answered, are the
     * evidence: a record of another process of it is true whoever holds it, while a missing one proves nothing.
     * @param maxTtlMillis this client's {@code maxTtl}
     * @param quarantineMillis this client's quarantine
     * @param info what the reader says of itself, or null when it did not answer
     * @param previous the {@code run_id} this client decided on for the reader before, or null
     * @param records the reader's own records, from every node that answered
     * @return whether its answers count
     */
    static boolean trustedReader(long maxTtlMillis, long quarantineMillis, @Nullable ServerInfo info, @Nullable String previous,
            NodeRecords records) {
        return info != null && info.master()
                && judge(RestartQuarantine.AUTO, maxTtlMillis, quarantineMillis, info, previous, records, null, "").quarantine() == null;
    }

    /**
     * The value of the kept-data marker that a process writes: its {@code run_id} and the server it runs on, so that a
     * marker copied to another server (a replica, promoted later) proves nothing there.
     * @param runId the process
     * @param server its address
     * @return the marker
     */
    static String markerOf(@Nullable String runId, String server) {
        return runId + "@" + server;
    }

    /** How long the node has been the master, for a message: its uptime, or that it was promoted at an unknown time. */
    private static String upFor(ServerInfo info) {
        return info.promoted() ? "promoted from a replica at a time it does not tell" : "up for only " + info.uptimeSeconds() + " s";
    }

    /**
     * How much longer a node waits before it has been the master for the longest quarantine that the records name (never
     * less than this client's), and what that length is, for a message.
     */
    private record Wait(long nanos, String length) {

        static Wait of(ServerInfo info, NodeRecords records, long maxTtlMillis, long quarantineMillis) {
            NodeRecords.Entry longest = records.longest();
            // The record of a client of the fleet whose quarantine is longer than this client's, or null.
            NodeRecords.Entry longer = (longest != null && longest.quarantineMillis() > quarantineMillis) ? longest : null;
            // A promoted replica may lack what its former master acknowledged from the moment it took over, which INFO
            // does not tell: the wait counts from now, not from its start.
            long nanos = TimeUnit.MILLISECONDS.toNanos((longer != null) ? longer.quarantineMillis() : quarantineMillis)
                    - TimeUnit.SECONDS.toNanos(info.masterForSeconds());
            String length = (longer != null) ? "; it waits for the longest max-ttl that a client of this prefix recorded for it, a max-ttl of "
                    + seconds(longer.maxTtlMillis()) + " (this client's is " + seconds(maxTtlMillis) + ")"
                    : "; it waits for this client's max-ttl of " + seconds(maxTtlMillis);
            return new Wait(nanos, length);
        }

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
