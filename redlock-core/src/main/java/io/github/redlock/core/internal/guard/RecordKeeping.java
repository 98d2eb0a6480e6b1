package io.github.redlock.core.internal.guard;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.node.NodeVote;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * This client's records of the nodes' processes, written on the other nodes when a node is decided on and again every
 * refresh period, and the nodes' kept-data markers refreshed with them ({@link NodeRecordStore} does the I/O). In
 * {@code AUTO}, a record confirmed on {@link QuarantinePolicy#recordsToConfirm} other nodes lets its node vote for
 * {@link #recordVotesNanos}, which a refresh extends (docs/safety.md, "The rule, as quorum intersection").
 */
final class RecordKeeping {

    private final RedisNodeClient[] nodes;

    private final NodeRecordStore store;

    private final RestartQuarantine mode;

    /** How often this client writes its records again. */
    private final long refreshMillis;

    /**
     * In {@code AUTO}, how long after the start of a confirmed write of its record a node votes in this client: two
     * quarantines less a max-ttl, so that every lease granted meanwhile ends before the record expires.
     */
    private final long recordVotesNanos;

    /** The control's former rule ({@link RestartGuard#FORMER_READS_PROPERTY}): a node votes without confirmed records. */
    private final boolean formerReads;

    private final EventExecutorGroup scheduler;

    private volatile @Nullable ScheduledFuture<?> refresh;

    RecordKeeping(RedisNodeClient[] nodes, NodeRecordStore store, RestartQuarantine mode, long maxTtlMillis, long quarantineMillis,
            boolean formerReads, EventExecutorGroup scheduler) {
        this.nodes = nodes;
        this.store = store;
        this.mode = mode;
        this.refreshMillis = NodeRecords.refreshMillis(quarantineMillis);
        this.recordVotesNanos = TimeUnit.MILLISECONDS.toNanos(2 * quarantineMillis - maxTtlMillis);
        this.formerReads = formerReads;
        this.scheduler = scheduler;
    }

    /** Starts writing the records again every refresh period. */
    void start() {
        this.refresh = this.scheduler.scheduleAtFixedRate(this::refresh, this.refreshMillis, this.refreshMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Writes this client's record of the node's process to the other nodes and returns how many confirmed it; with
     * enough ({@link #recordsToConfirm()}), in {@code AUTO}, lets the node vote through that process for
     * {@link #recordVotesNanos} from before the writes (a refresh extends it). A record lives two quarantines and a refresh
     * period ({@link NodeRecords#keepMillis}), and a lease granted through the node a max-ttl: so a lease granted while the
     * node votes ends while the record that a later check of the node must find still lives, however many refreshes fail.
     */
    CompletableFuture<Long> recordConfirmed(int index, String runId) {
        long started = System.nanoTime();
        return this.store.write(index, runId).thenApply((confirmed) -> {
            if (this.mode == RestartQuarantine.AUTO && confirmed >= recordsToConfirm()) {
                this.nodes[index].vote().recordedUntil(runId, started + this.recordVotesNanos);
            }
            return confirmed;
        });
    }

    /** {@link QuarantinePolicy#recordsToConfirm} of the node count, or none for the control's former rule. */
    int recordsToConfirm() {
        return this.formerReads ? 0 : QuarantinePolicy.recordsToConfirm(this.nodes.length);
    }

    /**
     * The server that answers for a node now, as a marker names it: a Sentinel node's current master, else the node's
     * own address. A Sentinel group's promoted replica is another server than its former master.
     */
    static String server(RedisNodeClient node) {
        List<String> servers = node.servers();
        return node.isSentinel() && !servers.isEmpty() ? servers.get(0) : node.name();
    }

    /**
     * Writes this client's records again, and each node's marker as the node is now: set once it votes (its
     * quarantine is over) while durable, deleted while it is not durable, so that a node whose {@code appendfsync}
     * was weakened at run time loses its marker within a refresh period.
     */
    private void refresh() {
        for (int i = 0; i < this.nodes.length; i++) {
            int index = i;
            RedisNodeClient node = this.nodes[i];
            String runId = node.vote().runId();
            NodeVote.State vote = node.vote().current();
            if (runId != null && vote.checked()) {
                recordConfirmed(i, runId);
                node.serverInfo().thenAccept((info) -> {
                    if (info.runId().equals(runId) && info.master() && (!info.durable() || node.vote().mayVote())) {
                        this.store.mark(index, vote.epoch(), info, info.durable() ? "set" : "delete", server(node));
                    }
                    else if (!info.master()) { // a Sentinel node's former master, demoted: a failover this client missed
                        node.followMaster("the server answering it is a replica now");
                    }
                }).exceptionally((failure) -> null); // refreshed again soon
            }
        }
    }

    /** Stops the refreshes. */
    void close() {
        ScheduledFuture<?> current = this.refresh;
        if (current != null) {
            current.cancel(false);
        }
    }

}
