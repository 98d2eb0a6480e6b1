package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Decides, each time a node (re)connects and before it votes, whether it must wait: the "delayed restart"
 * rule ({@link RestartQuarantine}). It reads the node's {@code run_id} and uptime, and, in {@code AUTO}, what
 * clients recorded of the node on the other nodes: per node, a small hash of the {@code run_id}s seen on it and
 * when (by the recording node's clock), refreshed by every client every {@code maxTtl / 4} and kept for
 * {@code maxTtl} plus a margin. A node answering with another {@code run_id} than one seen within that time
 * restarted while in use, and may have lost keys of valid locks: it votes only once it has been up for
 * {@code maxTtl} plus drift plus a second. Logs when a node enters and leaves quarantine.
 * <p>
 * Records are keyed by the node's address as configured ({@code host:port}): clients that name one node
 * differently (e.g. {@code localhost} and {@code 127.0.0.1}) do not see each other's records of it.
 * <p>
 * It is longer than the core's other classes (about 330 lines) because the check is one sequence with three
 * outcomes (vote, wait, check again) and each step explains why it fails closed; the fencing repair it runs
 * before a node votes is {@link Fencing}'s, and the vote's state {@link NodeVote}'s.
 */
final class RestartGuard implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(RestartGuard.class.getName());

    /** A read of another node's records that failed or timed out. */
    private static final Object NO_ANSWER = new Object();

    /** How long a node that is not an independent master waits: until its next connection's check. */
    private static final long EXCLUDED_NANOS = Long.MAX_VALUE / 4;

    /** How long a node's answers to the check may take: a frozen node is checked again when it reconnects. */
    private static final long CHECK_TIMEOUT_MILLIS = 2_000;

    private final RedisNodeClient[] nodes;

    private final byte[][] recordKeys;

    private final RestartQuarantine mode;

    /** How long a restarted node waits after its start before it votes: maxTtl, drift, and a second. */
    private final long quarantineNanos;

    /**
     * How long a record of a node matters, and is kept: a restart matters while its lost keys may live, up to
     * a quarantine after the crash, and the crash may come a refresh period after the last record and up to a
     * quarantine before the restart is checked. So two quarantines and a refresh period.
     */
    private final long keepMillis;

    /** How often each client writes its records again. */
    private final long refreshMillis;

    private final EventExecutorGroup scheduler;

    /** Raises a node's fencing counter before it votes; null when fencing is off. */
    private final Fencing fencing;

    private volatile ScheduledFuture<?> refresh;

    RestartGuard(RedisNodeClient[] nodes, String keyPrefix, RestartQuarantine mode, long maxTtlMillis, long driftNanos,
            Fencing fencing, EventExecutorGroup scheduler) {
        this.nodes = nodes;
        this.fencing = fencing;
        this.mode = mode;
        this.scheduler = scheduler;
        this.quarantineNanos = TimeUnit.MILLISECONDS.toNanos(maxTtlMillis) + driftNanos + TimeUnit.SECONDS.toNanos(1);
        this.refreshMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(this.quarantineNanos) / 4);
        this.keepMillis = 2 * TimeUnit.NANOSECONDS.toMillis(this.quarantineNanos) + this.refreshMillis;
        this.recordKeys = new byte[nodes.length][];
        byte[] prefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < nodes.length; i++) {
            // The separator byte 0xFF never occurs in UTF-8, so no lock's key is a record's.
            byte[] name = ascii("node:" + nodes[i].name());
            byte[] key = new byte[prefix.length + 1 + name.length];
            System.arraycopy(prefix, 0, key, 0, prefix.length);
            key[prefix.length] = LockType.PART_SEPARATOR;
            System.arraycopy(name, 0, key, prefix.length + 1, name.length);
            this.recordKeys[i] = key;
        }
    }

    /**
     * Checks every connected node, waiting at most {@code boundMillis} for them, and from then on every node
     * that (re)connects; starts refreshing the records.
     */
    void start(long boundMillis) {
        List<CompletableFuture<Void>> checks = new ArrayList<>();
        for (int i = 0; i < this.nodes.length; i++) {
            int index = i;
            this.nodes[i].checkWith(() -> check(index));
            if (this.nodes[i].isConnected()) {
                checks.add(check(i));
            }
        }
        try {
            CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).get(boundMillis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            // Slow nodes are checked when their answers come; they do not vote meanwhile.
        }
        this.refresh = this.scheduler.scheduleAtFixedRate(this::refresh, this.refreshMillis, this.refreshMillis, TimeUnit.MILLISECONDS);
    }

    /** Checks one node after it (re)connected, and lets it vote, now or after its quarantine. */
    CompletableFuture<Void> check(int index) {
        RedisNodeClient node = this.nodes[index];
        long epoch = node.vote().current().epoch(); // before INFO: a disconnect after it voids this check
        return node.serverInfo().orTimeout(CHECK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .thenCompose((info) -> decide(index, epoch, info))
                .exceptionally((failure) -> {
                    if (node.isConnected()) {
                        this.scheduler.schedule(() -> check(index), 200, TimeUnit.MILLISECONDS); // still unchecked
                    }
                    return null;
                });
    }

    private CompletableFuture<Void> decide(int index, long epoch, ServerInfo info) {
        RedisNodeClient node = this.nodes[index];
        if (node.vote().current().epoch() != epoch) {
            return CompletableFuture.completedFuture(null); // answered before a disconnect: the next check decides
        }
        String previous = node.vote().runId();
        node.vote().seenRunId(info.runId()); // before comparing with the others: of two concurrent checks, one sees the other
        String notIndependent = notIndependent(index, info);
        if (notIndependent != null) {
            exclude(node, epoch, notIndependent);
            return CompletableFuture.completedFuture(null);
        }
        long waitNanos = this.quarantineNanos - TimeUnit.SECONDS.toNanos(info.uptimeSeconds());
        CompletableFuture<Verdict> verdict;
        if (this.mode == RestartQuarantine.NEVER || waitNanos <= 0) {
            verdict = CompletableFuture.completedFuture(Verdict.VOTE);
        }
        else if (this.mode == RestartQuarantine.ALWAYS) {
            verdict = Verdict.wait("up for only " + info.uptimeSeconds() + " s (restart-quarantine ALWAYS)");
        }
        else if (info.durable()) {
            verdict = CompletableFuture.completedFuture(Verdict.VOTE); // appendfsync always: it kept every key it acknowledged
        }
        else if (previous != null && !previous.equals(info.runId())) {
            verdict = Verdict.wait("restarted " + info.uptimeSeconds() + " s ago (its run_id changed while this client was connected)");
        }
        else {
            verdict = restartSeenByOthers(index, info);
        }
        return verdict.thenCompose((decided) -> raiseFencingFloor(index, info, decided)).thenAccept((decided) -> {
            if (!decided.decided()) {
                return; // too few nodes answered: checked again shortly, the node does not vote meanwhile
            }
            boolean applied = (decided.quarantine() == null) ? node.vote().voteFrom(epoch, System.nanoTime(), "")
                    : quarantine(node, epoch, waitNanos, decided.quarantine());
            if (applied) {
                node.vote().runId(info.runId()); // only now: a check voided by a reconnect keeps the old evidence
                record(index, info.runId()); // after reading: another client's check must still find the old run_id
            }
        });
    }

    /**
     * With fencing, raises the node's counter to the other nodes' before it votes or waits (it may have lost it
     * in a restart); if too few nodes answered, the check is undecided and runs again shortly.
     */
    private CompletableFuture<Verdict> raiseFencingFloor(int index, ServerInfo info, Verdict verdict) {
        if (this.fencing == null || !verdict.decided()) {
            return CompletableFuture.completedFuture(verdict);
        }
        return this.fencing.raiseFloor(index, info).thenApply((raised) -> {
            if (raised) {
                return verdict;
            }
            this.scheduler.schedule(() -> check(index), 200, TimeUnit.MILLISECONDS);
            return Verdict.UNDECIDED;
        });
    }

    /**
     * Why the node is not an independent master, or null: a replica, or the same server process (run_id) as a
     * node listed before it. Of two addresses of one server, the one listed first votes.
     */
    private String notIndependent(int index, ServerInfo info) {
        if (!info.master()) {
            return "a replica, not a master: Redlock needs independent masters";
        }
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && info.runId().equals(this.nodes[j].vote().seenRunId())) {
                if (j < index) {
                    return "the same server as " + this.nodes[j].name() + " (run_id " + info.runId() + "), listed twice";
                }
                // Listed after this one: it is the one to exclude, whichever was checked first.
                RedisNodeClient other = this.nodes[j];
                exclude(other, other.vote().current().epoch(), "the same server as " + this.nodes[index].name() + " (run_id "
                        + info.runId() + "), listed twice");
            }
        }
        return null;
    }

    private void exclude(RedisNodeClient node, long epoch, String reason) {
        if (node.vote().exclude(epoch, System.nanoTime() + EXCLUDED_NANOS, "not an independent master: " + reason)) {
            logger.log(System.Logger.Level.WARNING, "Redis node " + node.name() + " does not vote: " + reason
                    + ". A quorum of such nodes is not a real one; list N independent masters in the node list.");
        }
    }

    /**
     * Whether the other nodes hold a record of another server process on this node, seen recently enough to
     * matter. Fails closed: unless at least {@code quorum - 1} other nodes answered (as many as a quorum that
     * includes this node needs), the answer is {@link Verdict#UNDECIDED} and the node is checked again shortly.
     */
    private CompletableFuture<Verdict> restartSeenByOthers(int index, ServerInfo info) {
        List<CompletableFuture<Object>> reads = new ArrayList<>();
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && this.nodes[j].isConnected()) {
                reads.add(this.nodes[j].call(LuaScript.NODE_RECORDS, new byte[][] { this.recordKeys[index] })
                        .orTimeout(CHECK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).exceptionally((failure) -> NO_ANSWER));
            }
        }
        int needed = this.nodes.length / 2; // quorum - 1
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply((done) -> {
            long answered = reads.stream().map(CompletableFuture::join).filter((reply) -> reply != NO_ANSWER).count();
            String found = reads.stream().map(CompletableFuture::join).filter((reply) -> reply != NO_ANSWER)
                    .map((reply) -> otherProcess(reply, info.runId(), this.keepMillis)).filter((seen) -> seen != null)
                    .findFirst().orElse(null);
            if (found != null) {
                return new Verdict(true, "restarted " + info.uptimeSeconds() + " s ago while in use (" + found + ")");
            }
            if (answered < needed) {
                this.scheduler.schedule(() -> check(index), 500, TimeUnit.MILLISECONDS);
                return Verdict.UNDECIDED;
            }
            return Verdict.VOTE;
        });
    }

    /** Describes a record of another run_id seen within {@code keepMillis}, or returns null. */
    private static String otherProcess(Object reply, String runId, long keepMillis) {
        if (!(reply instanceof List<?> entries)) {
            return null;
        }
        for (int i = 0; i + 1 < entries.size(); i += 2) {
            String seen = text(entries.get(i));
            long age = Long.parseLong(text(entries.get(i + 1)));
            if (!seen.equals(runId) && age <= keepMillis) {
                return "run_id " + seen + " was seen on it " + age + " ms ago";
            }
        }
        return null;
    }

    private boolean quarantine(RedisNodeClient node, long epoch, long waitNanos, String reason) {
        if (!node.vote().voteFrom(epoch, System.nanoTime() + waitNanos, "quarantined: " + reason)) {
            return false; // the connection dropped meanwhile: its next check decides
        }
        NodeVote.State vote = node.vote().current();
        logger.log(System.Logger.Level.INFO, "Redis node " + node.name() + " does not vote for the next "
                + Duration.ofNanos(waitNanos).toSeconds() + " s: " + reason + "; it may have lost keys of locks still held");
        this.scheduler.schedule(() -> {
            if (node.vote().current() == vote) {
                logger.log(System.Logger.Level.INFO, "Redis node " + node.name() + " votes again: its quarantine is over");
            }
        }, waitNanos, TimeUnit.NANOSECONDS);
        return true;
    }

    /** Records, on every other connected node, that this client sees the node answer as {@code runId} now. */
    private void record(int index, String runId) {
        byte[] run = ascii(runId);
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && this.nodes[j].isConnected()) {
                this.nodes[j].call(LuaScript.NODE_RECORD, new byte[][] { this.recordKeys[index] }, run, ascii(Long.toString(this.keepMillis)))
                        .exceptionally((failure) -> null); // refreshed again soon
            }
        }
    }

    private void refresh() {
        for (int i = 0; i < this.nodes.length; i++) {
            String runId = this.nodes[i].vote().runId();
            if (runId != null && this.nodes[i].vote().current().checked()) {
                record(i, runId);
            }
        }
    }

    @Override
    public void close() {
        ScheduledFuture<?> current = this.refresh;
        if (current != null) {
            current.cancel(false);
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(Object value) {
        return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(value);
    }

    /**
     * What a check decided: vote now ({@code quarantine} null), wait for the reason given, or nothing yet.
     * @param decided false when too few nodes answered: the node stays unchecked and is checked again
     * @param quarantine why the node waits, or null when it votes
     */
    private record Verdict(boolean decided, String quarantine) {

        static final Verdict VOTE = new Verdict(true, null);

        static final Verdict UNDECIDED = new Verdict(false, null);

        static CompletableFuture<Verdict> wait(String reason) {
            return CompletableFuture.completedFuture(new Verdict(true, reason));
        }

    }

}
