package io.github.redlock.core.internal.guard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.guard.QuarantinePolicy.Verdict;
import io.github.redlock.core.internal.node.NodeVote;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.node.ServerInfo;
import io.github.redlock.core.internal.support.Uris;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * Decides, each time a node (re)connects and before it votes, whether it must wait: the "delayed restart"
 * rule ({@link RestartQuarantine}). It reads the node's {@code run_id} and uptime, and what the clients of the
 * key prefix recorded of the node on the other nodes ({@link NodeRecords}): per node, a small hash of the
 * {@code run_id}s seen on it, when (by the recording node's clock), and each recording client's {@code maxTtl},
 * refreshed by every client every quarter of its quarantine. A node answering with another {@code run_id} than
 * one recorded within that record's lifetime (or than this client saw) restarted while in use, and may have lost
 * keys of valid locks: it votes only once it has been up for the longest {@code maxTtl} recorded for it (never
 * less than this client's own), plus drift plus a second, since a client with that {@code maxTtl} may hold a lease
 * through it. Logs when a node enters and leaves quarantine, with the {@code maxTtl} it waits for and why.
 * <p>
 * The records a check reads always meet the records any holder's client wrote (docs/safety.md, "The rule, as quorum
 * intersection"): a node votes in this client only once its record is confirmed on {@link
 * QuarantinePolicy#recordsToConfirm} other nodes, and a check counts only the answers of readers that nothing shows to
 * have restarted while in use ({@link QuarantinePolicy#trustedReader}), of which it needs {@link
 * QuarantinePolicy#readersNeeded}; with fewer it decides nothing (fail closed). A process this client already decided on
 * keeps its verdict across reconnects, without a read.
 * <p>
 * A node that logs every write before answering votes at once after a restart only when its kept-data marker, which
 * clients set on it while it votes and is durable, names the process that ran on it just before this one. The rules
 * themselves are {@link QuarantinePolicy}'s, the independence of the nodes {@link Independence}'s; the records and
 * markers are read and written by {@link NodeRecordStore}, and written again every refresh period by
 * {@link RecordKeeping}.
 * <p>
 * The check is one sequence with three outcomes (vote, wait, check again), and each step explains why it fails
 * closed; the fencing repair it runs before a node votes is {@link Fencing}'s, and the vote's state {@link NodeVote}'s.
 */
public final class RestartGuard implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(RestartGuard.class.getName());

    /** How long a node that is not an independent master waits: until its next connection's check. */
    private static final long EXCLUDED_NANOS = Long.MAX_VALUE / 4;

    /** How long a node's answers to the check may take: a frozen node is checked again when it reconnects. */
    private static final long CHECK_TIMEOUT_MILLIS = NodeRecordStore.TIMEOUT_MILLIS;

    /**
     * A JVM system property that, set to {@code true}, brings back the record reads from before the quorum-intersection
     * rule (issue 38): a check decides on {@code floor(N / 2)} answers from any nodes, restarted ones among them, and a
     * node votes without its record confirmed anywhere. Only for the control of the partition chaos run, which must find
     * the hole this rule closes. Never set it in production.
     */
    static final String FORMER_READS_PROPERTY = "redlock.internal.former-record-reads";

    private static final boolean FORMER_READS = Boolean.getBoolean(FORMER_READS_PROPERTY);

    private final RedisNodeClient[] nodes;

    /** Where this client's records and the nodes' markers are written and read. */
    private final NodeRecordStore store;

    private final RestartQuarantine mode;

    /** This client's {@code maxTtl}. */
    private final long maxTtlMillis;

    /**
     * How long a node that restarted while this client may have held a lease through it waits after its start
     * before it votes: maxTtl, drift, and a second. A record of a node matters, and is kept, for two of these and a
     * refresh period ({@link NodeRecords#keepMillis(long)}): a restart matters while its lost keys may live, up to a
     * quarantine after the crash, and the crash may come a refresh period after the last record and up to a
     * quarantine before the restart is checked.
     */
    private final long quarantineMillis;

    /** This client's records of the nodes, written and refreshed. */
    private final RecordKeeping records;

    private final EventExecutorGroup scheduler;

    /** Raises a node's fencing counter before it votes; null when fencing is off. */
    private final @Nullable Fencing fencing;


    /** Per node, the last verdict this client applied: to which server process, from when it votes, and why it waited. */
    private final AtomicReferenceArray<@Nullable Decision> decided;

    public RestartGuard(RedisNodeClient[] nodes, String keyPrefix, RestartQuarantine mode, long maxTtlMillis, long driftNanos,
            @Nullable Fencing fencing, EventExecutorGroup scheduler) {
        this.nodes = nodes;
        this.fencing = fencing;
        this.mode = mode;
        this.scheduler = scheduler;
        this.maxTtlMillis = maxTtlMillis;
        this.quarantineMillis = maxTtlMillis + TimeUnit.NANOSECONDS.toMillis(driftNanos) + 1000;
        this.store = new NodeRecordStore(nodes, keyPrefix, maxTtlMillis, this.quarantineMillis);
        this.records = new RecordKeeping(nodes, this.store, mode, maxTtlMillis, this.quarantineMillis, FORMER_READS, scheduler);
        this.decided = new AtomicReferenceArray<>(nodes.length);
        for (RedisNodeClient node : nodes) {
            if (mode == RestartQuarantine.AUTO) {
                node.vote().requireRecords();
            }
        }
    }

    /**
     * Checks every connected node, waiting at most {@code boundMillis} for them, and from then on every node
     * that (re)connects; starts refreshing the records.
     */
    public void start(long boundMillis) {
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
        this.records.start();
    }

    /** Checks one node after it (re)connected, and lets it vote, now or after its quarantine. */
    CompletableFuture<Void> check(int index) {
        RedisNodeClient node = this.nodes[index];
        long epoch = node.vote().current().epoch(); // before INFO: a disconnect after it voids this check
        return node.serverInfo().orTimeout(CHECK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .thenCompose((info) -> decide(index, epoch, info))
                .exceptionally((failure) -> {
                    // Fails closed: the node does not vote while it cannot be checked, and says why.
                    node.vote().checkFailed(epoch, "not checked yet since it connected: " + whyUnchecked(failure));
                    if (node.isConnected()) {
                        this.scheduler.schedule(() -> check(index), 200, TimeUnit.MILLISECONDS); // still unchecked
                    }
                    return null;
                });
    }

    /** Why a check failed, for the node's status: a refused command says which, e.g. an ACL or a renamed INFO. */
    private static String whyUnchecked(Throwable failure) {
        Throwable cause = (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
        if (cause instanceof java.util.concurrent.TimeoutException) {
            return "it did not answer the check within " + CHECK_TIMEOUT_MILLIS + " ms";
        }
        return "the check failed (" + Uris.describe(cause) + "); the restart check fails closed";
    }

    private CompletableFuture<Void> decide(int index, long epoch, ServerInfo info) {
        RedisNodeClient node = this.nodes[index];
        if (node.vote().current().epoch() != epoch) {
            return CompletableFuture.completedFuture(null); // answered before a disconnect: the next check decides
        }
        if (!info.master() && node.isSentinel()) {
            // The sentinels named a replica: a failover runs, or this answer predates it. It stays unchecked (no vote)
            // and asks the sentinels again shortly.
            this.scheduler.schedule(() -> node.followMaster("the server the sentinels named answers as a replica"), 1, TimeUnit.SECONDS);
            return CompletableFuture.completedFuture(null);
        }
        if (!info.master() && node.isCluster()) {
            // The cluster's view names a replica as a master: a failover runs, or the view predates it. It stays unchecked,
            // reads the view again shortly, and is checked again after that even if the view did not change.
            node.vote().checkFailed(epoch, "not checked yet since it connected: a master of the cluster's view answers as a "
                    + "replica (a failover runs); reading the view again");
            this.scheduler.schedule(() -> node.followMaster("a master of the cluster's view answers as a replica"), 1, TimeUnit.SECONDS);
            this.scheduler.schedule(() -> check(index), 2, TimeUnit.SECONDS);
            return CompletableFuture.completedFuture(null);
        }
        if (node.isGroup()) {
            // Decided only on a server that a majority of the sentinels names (a view the other masters confirm): a promoted one's wait then counts from a
            // moment after the sentinels' switch, which bounds how long a deposed master still counts in another client.
            return node.confirmedByGroup(CHECK_TIMEOUT_MILLIS).thenCompose((confirmed) -> {
                if (node.vote().current().epoch() != epoch) {
                    return CompletableFuture.completedFuture(null);
                }
                if (!confirmed) {
                    node.vote().checkFailed(epoch, "not checked yet since it connected: " + node.unconfirmed() + "; checked again shortly");
                    if (node.isConnected()) {
                        this.scheduler.schedule(() -> check(index), 250, TimeUnit.MILLISECONDS);
                    }
                    return CompletableFuture.completedFuture(null);
                }
                return decideConfirmed(index, epoch, info);
            });
        }
        return decideConfirmed(index, epoch, info);
    }

    /** {@link #decide} on a server that is a master, and, of a Sentinel node, confirmed as its master by the sentinels. */
    private CompletableFuture<Void> decideConfirmed(int index, long epoch, ServerInfo info) {
        RedisNodeClient node = this.nodes[index];
        String previous = node.vote().runId();
        node.vote().seenRunId(info.runId()); // before comparing with the others: of two concurrent checks, one sees the other
        String notIndependent = notIndependent(index, info);
        if (notIndependent != null) {
            exclude(node, epoch, notIndependent);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<@Nullable String> marker = this.store.mark(index, epoch, info, info.durable() ? "read" : "delete", RecordKeeping.server(this.nodes[index]));
        Verdict known = known(index, info);
        CompletableFuture<Verdict> verdict = (this.mode == RestartQuarantine.NEVER) ? CompletableFuture.completedFuture(Verdict.VOTE)
                : (known != null) ? CompletableFuture.completedFuture(known)
                : this.store.evidence(index).thenCombine(marker, (evidence, kept) -> judge(index, info, previous, evidence, kept))
                        .thenApply((judged) -> node.isGroup() ? QuarantinePolicy.fromConfirmation(judged, info,
                                RedisNodeClient.SENTINEL_CONFIRMATION_NANOS) : judged);
        return verdict.thenCompose((decided) -> raiseFencingFloor(index, info, decided))
                .thenCompose((decided) -> confirmed(index, info, decided)).thenAccept((decided) -> {
                    if (!decided.decided()) { // too few nodes answered: checked again shortly, the node does not vote meanwhile
                        node.vote().checkFailed(epoch, "not checked yet since it connected: " + decided.quarantine());
                        return;
                    }
                    String reason = decided.quarantine();
                    boolean votes = reason == null;
                    boolean applied = (reason == null) ? node.vote().voteFrom(epoch, System.nanoTime(), "")
                            : quarantine(node, epoch, decided.waitNanos(), reason);
                    if (applied) {
                        node.vote().runId(info.runId()); // only now: a check voided by a reconnect keeps the old evidence
                        this.decided.set(index, new Decision(info.runId(), System.nanoTime() + decided.waitNanos(), reason));
                        if (!votes || this.mode == RestartQuarantine.NEVER) {
                            this.records.recordConfirmed(index, info.runId()); // after reading: another client's check must still find the old run_id
                        }
                        if (votes && info.durable()) {
                            this.store.mark(index, epoch, info, "set", RecordKeeping.server(this.nodes[index])); // it votes: its data is complete from here on
                        }
                    }
                });
    }

    /**
     * The verdict of {@code AUTO} and {@code ALWAYS} on a node ({@link QuarantinePolicy}), from what it says of itself,
     * the run_id this client saw on it before ({@code previous}, or null), what the other nodes answered ({@code
     * evidence}) and its marker as it was before this check ({@code kept}).
     */
    private Verdict judge(int index, ServerInfo info, @Nullable String previous, NodeRecordStore.Evidence evidence, @Nullable String marker) {
        int trusted = 0;
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && evidence.answered(index, j) && (FORMER_READS || QuarantinePolicy.trustedReader(this.maxTtlMillis,
                    this.quarantineMillis, evidence.infos()[j], this.nodes[j].vote().runId(), evidence.records()[j]))) {
                trusted++;
            }
        }
        int readersNeeded = FORMER_READS ? this.nodes.length / 2 : QuarantinePolicy.readersNeeded(this.nodes.length);
        Verdict verdict = QuarantinePolicy.check(this.mode, this.maxTtlMillis, this.quarantineMillis, info, previous,
                evidence.records()[index], marker, RecordKeeping.server(this.nodes[index]), trusted, readersNeeded);
        if (!verdict.decided()) {
            this.scheduler.schedule(() -> check(index), 500, TimeUnit.MILLISECONDS); // fails closed meanwhile
        }
        if (verdict.note() != null) {
            logger.log(System.Logger.Level.INFO, "Redis node " + this.nodes[index].name() + " " + verdict.note());
        }
        return verdict;
    }

    /**
     * The verdict on a node that answers as the server process this client decided on before, and has been a master
     * since its start: it did not restart since, so it lost nothing, and it votes, or waits out what is left of the
     * quarantine this client gave that process. Null for any other process, and for one that was promoted (a former
     * master that a failover made a replica and a failback a master again keeps its run_id, but took its new master's
     * data): those are checked against the other nodes.
     */
    private @Nullable Verdict known(int index, ServerInfo info) {
        Decision before = this.decided.get(index);
        if (before == null || !before.runId().equals(info.runId()) || info.promoted()) {
            return null;
        }
        long left = before.votesFromNanos() - System.nanoTime();
        String reason = before.reason();
        return (left <= 0 || reason == null) ? Verdict.VOTE : Verdict.waitFor(reason, left);
    }

    /**
     * Before a node votes in this client: this client's record of its server process, confirmed by at least
     * {@link QuarantinePolicy#recordsToConfirm} other nodes, where every later check of it reads. Fewer confirmations
     * leave it undecided (checked again shortly): a node that restarted after voting with its record on too few nodes
     * could look unused to a client that reads the others.
     */
    private CompletableFuture<Verdict> confirmed(int index, ServerInfo info, Verdict verdict) {
        if (this.mode == RestartQuarantine.NEVER || !verdict.decided() || verdict.quarantine() != null) {
            return CompletableFuture.completedFuture(verdict);
        }
        int needed = this.records.recordsToConfirm();
        return this.records.recordConfirmed(index, info.runId()).thenApply((confirmed) -> {
            if (confirmed >= needed) {
                return verdict;
            }
            this.scheduler.schedule(() -> check(index), 500, TimeUnit.MILLISECONDS);
            return Verdict.undecided("its record was confirmed on " + confirmed + " other node(s), and it votes only once " + needed
                    + " hold it; checked again shortly");
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
            return Verdict.undecided("its fencing counter could not be raised to the other nodes' (too few answered); checked again shortly");
        });
    }

    /**
     * Why the node is not an independent master, or null ({@link Independence}); a node listed after it that reaches the
     * same server is excluded, whichever was checked first.
     */
    private @Nullable String notIndependent(int index, ServerInfo info) {
        List<String> names = new ArrayList<>();
        List<@Nullable String> seen = new ArrayList<>();
        for (RedisNodeClient node : this.nodes) {
            names.add(node.name());
            seen.add(node.vote().seenRunId());
        }
        Independence.Finding finding = Independence.check(index, info.master(), info.runId(), names, seen);
        finding.later().forEach((other, reason) -> exclude(this.nodes[other], this.nodes[other].vote().current().epoch(), reason));
        return finding.reason();
    }

    private void exclude(RedisNodeClient node, long epoch, String reason) {
        if (node.vote().exclude(epoch, System.nanoTime() + EXCLUDED_NANOS, "not an independent master: " + reason)) {
            logger.log(System.Logger.Level.WARNING, "Redis node " + node.name() + " does not vote: " + reason
                    + ". A quorum of such nodes is not a real one; list N independent masters in the node list.");
        }
    }

    /**
     * A verdict this client applied to a node.
     * @param runId the server process it was about
     * @param votesFromNanos from when ({@link System#nanoTime()}) the process votes
     * @param reason why it waited, or null when it voted at once
     */
    private record Decision(String runId, long votesFromNanos, @Nullable String reason) {
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

    @Override
    public void close() {
        this.records.close();
    }

}
