package io.github.redlock.core.internal.guard;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.node.ServerInfo;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;

/**
 * Fencing tokens: each node keeps one counter for all locks (one key, so counters never grow with the number of keys
 * ever locked; a Redis Cluster node keeps one per lock instead, see {@code ClusterKeys}, whose tokens rest on the
 * nodes' clocks). Where a fenced acquisition sets its key, the node raises its counter by one and answers
 * it; the lease's token is the largest answer of the quorum; a second round writes the token back to every
 * node that still holds the key (the counter becomes at least the token), and the lease is granted only if a
 * quorum confirmed. An acquisition B that began after an acquisition A returned is granted by a quorum that
 * shares a node with A's confirming quorum; there B's raise came after A's write-back, so B's token is larger.
 * No clock is involved.
 * <p>
 * A node that restarts empty loses its counter. So, before a node votes on a new connection, the client checks
 * that the node's counter was repaired in its current server process: a mark beside the counter holds the
 * {@code run_id} of the process that was last repaired, and a restart (even from an old snapshot) changes the
 * {@code run_id}. If not, the node's counter is raised to the largest of the other nodes' first
 * ({@link #raiseFloor}), once the node has been up long enough for grants that were being confirmed when it went
 * down to be decided: read from every other node, or from at least {@code N - quorum + 1} whose own counters
 * were repaired in their current process. With at most {@code N - quorum} nodes down or restarted, a confirming
 * quorum of every earlier grant keeps a node that answers with its counter intact; with more, the node waits.
 * A fresh deployment needs every node reachable once.
 * <p>
 * A counter that starts again (repaired, or found absent by a raise) starts at least at the node's clock in
 * microseconds ({@code fence-prelude.lua}), which a counter raised once per grant does not reach. That is the
 * floor when more than {@code N - quorum} nodes lost their counters (every node restarted empty looks like a
 * fresh deployment, and the nodes left may answer counters from before the last grants), and after a counter
 * deleted or evicted without a restart; there, unlike above, tokens rise only as long as no node's clock went
 * back by more than the time between the two (the floor is the largest clock of the nodes that answered the
 * repair, so a node whose clock runs ahead lifts the others while it answers). Not covered: a counter set lower by hand without a restart, and a
 * client whose node timeout is longer than about a second while a node restarts during its confirming round.
 */
public final class Fencing {

    /** How long a node's answer to a read of its counter may take. */
    private static final long READ_TIMEOUT_MILLIS = 2_000;

    /**
     * How long a restarted node must have been up before its counter is repaired: longer than any client's
     * confirming round may take (its node timeout, below a second, plus a timer tick), counted in whole seconds
     * as {@code INFO} gives the uptime.
     */
    static final long SETTLE_SECONDS = 2;

    private final RedisNodeClient[] nodes;

    private final byte[] counterKey;

    /**
     * The run_id of the server process whose counter was last repaired, and the counter that repair left, as
     * {@code "<run_id> <counter>"}: the prefix, 0xFF, {@code fencing-mark}.
     */
    private final byte[] markKey;

    public Fencing(RedisNodeClient[] nodes, String keyPrefix) {
        this.nodes = nodes;
        // The separator byte 0xFF never occurs in UTF-8, so no lock's key is the counter.
        byte[] prefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
        byte[] name = "fencing-counter".getBytes(StandardCharsets.US_ASCII);
        this.counterKey = new byte[prefix.length + 1 + name.length];
        System.arraycopy(prefix, 0, this.counterKey, 0, prefix.length);
        this.counterKey[prefix.length] = LockType.PART_SEPARATOR;
        System.arraycopy(name, 0, this.counterKey, prefix.length + 1, name.length);
        this.markKey = new byte[prefix.length + 1 + 12];
        System.arraycopy(prefix, 0, this.markKey, 0, prefix.length);
        this.markKey[prefix.length] = LockType.PART_SEPARATOR;
        System.arraycopy(ascii("fencing-mark"), 0, this.markKey, prefix.length + 1, 12);
    }

    /** The nodes' counter key: the prefix, the byte 0xFF, {@code fencing-counter}. */
    public byte[] counterKey() {
        return this.counterKey;
    }

    /** The candidate token of an acquisition that reached its quorum: the largest counter a granting node answered. */
    public static long candidate(QuorumCall acquisition, int nodeCount) {
        long candidate = 0;
        for (int i = 0; i < nodeCount; i++) {
            NodeReply reply = acquisition.reply(i);
            if (reply != null && reply.granted()) {
                candidate = Math.max(candidate, reply.value());
            }
        }
        return candidate;
    }

    /**
     * The second round: writes the candidate back to every node the acquisition may have reached; a node says
     * yes while it still holds the lease's key. Sent directly from the thread that decided the first round (an
     * I/O thread, to save a hop): on a connection of that thread it may overtake commands other threads queued
     * there. Overtaking this attempt's own SET makes that node say no (it then does not count toward the lease's
     * validity); overtaking a write lock's clean-up of its previous attempt (same token) makes it say yes to the
     * old key and raise its counter, which is as safe. The grant needs a quorum of yes either way.
     */
    public static QuorumCall confirm(NodeSet nodes, LockType.Keys keys, byte[] token, long candidate, QuorumCall acquisition) {
        QuorumCall call = nodes.newCall("confirm-fencing");
        byte[][] fence = Objects.requireNonNull(keys.fence(), "only a fenced acquisition confirms a fencing token");
        byte[][] args = { token, Long.toString(candidate).getBytes(StandardCharsets.US_ASCII) };
        for (int i = 0; i < nodes.size(); i++) {
            if (acquisition.maySetOn(i)) {
                nodes.node(i).eval(LuaScript.CONFIRM_FENCING, fence, args, call, i);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        return call;
    }

    /**
     * Before a node that (re)connected votes: a node whose counter was repaired in its current server process
     * (its mark is the run_id the check read) keeps it; any other (restarted, or given a counter by a command
     * that raced the reconnect) gets the largest counter of the other nodes first. The repair waits until the
     * node has been up for {@link #SETTLE_SECONDS}, so that a grant confirmed on the node just before it went
     * down has been confirmed on its quorum, or given up; then it reads at least {@code N - quorum + 1} other
     * nodes whose own counters were repaired in their current process, or every other node.
     * @param info what the node said of itself on this connection
     * @return whether the node may vote; false when too few other nodes answered, and it must not vote yet
     */
    CompletableFuture<Boolean> raiseFloor(int index, ServerInfo info) {
        if (this.nodes[index].isCluster()) {
            // No node-wide counter to repair: each lock's own starts at the node's clock when it is missing.
            return CompletableFuture.completedFuture(true);
        }
        return read(this.nodes[index]).thenCompose((own) -> {
            if (own.markedBy(info.runId())) {
                return CompletableFuture.completedFuture(true);
            }
            return readPeers(index).thenCompose((peers) -> {
                // No other node saw a grant (no counter, or one still as its repair left it): none to wait for. A
                // fresh deployment, or every node restarted empty: the repair's clock floor keeps tokens rising.
                boolean fresh = peers.size() == this.nodes.length - 1 && peers.stream().allMatch(Counter::sawNoGrant);
                long settleMillis = TimeUnit.SECONDS.toMillis(SETTLE_SECONDS - info.uptimeSeconds());
                if (fresh || settleMillis <= 0) {
                    return repair(index, info.runId(), peers);
                }
                Executor later = CompletableFuture.delayedExecutor(settleMillis, TimeUnit.MILLISECONDS);
                return CompletableFuture.supplyAsync(() -> index, later).thenCompose(this::readPeers)
                        .thenCompose((settled) -> repair(index, info.runId(), settled));
            });
        }).exceptionally((failure) -> false);
    }

    /** Reads every other node's counter, with whether it was repaired in its current process; null-free. */
    private CompletableFuture<List<Counter>> readPeers(int index) {
        List<CompletableFuture<Counter>> reads = new ArrayList<>();
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && this.nodes[j].isCluster()) {
                // A cluster node keeps a counter per lock, which no read of one key gives: only its clock counts, as the
                // floor every counter starts from, and the node is not one of the trusted answers a repair needs.
                reads.add(read(this.nodes[j]).thenApply(Counter::clockOnly).orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                        .exceptionally((failure) -> null));
            }
            else if (j != index) {
                RedisNodeClient peer = this.nodes[j];
                // The read, then INFO, on one connection: a restart between them drops it and fails both.
                CompletableFuture<Counter> counter = read(peer);
                CompletableFuture<String> peerRunId = peer.runId();
                reads.add(counter.thenCombine(peerRunId, (read, run) -> read.markedBy(run) ? read : read.untrusted())
                        .orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).exceptionally((failure) -> null));
            }
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenApply((done) -> reads.stream().map(CompletableFuture::join).filter((counter) -> counter != null).toList());
    }

    /**
     * Raises the node's counter to the largest of the other nodes' (and at least the node's clock, which the
     * script adds) and marks it as repaired in this process: from every other node if all answered, else from at
     * least {@code N - quorum + 1} trusted ones.
     */
    private CompletableFuture<Boolean> repair(int index, String runId, List<Counter> answers) {
        int needed = Math.min(this.nodes.length - (this.nodes.length / 2 + 1) + 1, this.nodes.length - 1);
        // Every other node answered: of a confirming quorum, those that did not restart are among them.
        List<Counter> basis = (answers.size() == this.nodes.length - 1) ? answers
                : answers.stream().filter(Counter::trusted).toList();
        if (basis.size() < needed) {
            return CompletableFuture.completedFuture(false);
        }
        // Every answer's clock too, not only this node's: a node whose clock runs ahead may have given the last
        // tokens before every counter was lost, and the others' clocks would then be below them.
        long clocks = answers.stream().mapToLong(Counter::clock).max().orElse(0);
        long floor = Math.max(Math.max(0, basis.stream().mapToLong(Counter::value).max().orElse(0)), clocks);
        byte[][] keys = { this.counterKey, this.markKey };
        return this.nodes[index].call(LuaScript.FENCING_FLOOR, keys, ascii(runId), ascii(Long.toString(floor)))
                .orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .thenApply((reply) -> Counter.of(reply).value() >= floor);
    }

    /** Reads a node's counter and mark. */
    private CompletableFuture<Counter> read(RedisNodeClient node) {
        return node.call(LuaScript.FENCING_FLOOR, new byte[][] { this.counterKey, this.markKey })
                .orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).thenApply(Counter::of);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A node's counter as read: its value (-1 when absent), the run_id of the process that repaired it and the
     * value that repair left (-1 unknown), whether it may be trusted (its mark is its current run_id), and the
     * node's clock in µs when it was read (0 unknown).
     */
    private record Counter(long value, String runId, long repaired, boolean trusted, long clock) {

        static Counter of(Object reply) {
            if (!(reply instanceof List<?> parts) || parts.size() < 2) {
                throw new IllegalStateException("unexpected reply to the fencing counter's read: " + reply);
            }
            Object mark = parts.get(1);
            String text = (mark instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(mark);
            int space = text.indexOf(' ');
            String runId = (space < 0) ? text : text.substring(0, space);
            long repaired = (space < 0) ? -1 : Long.parseLong(text.substring(space + 1));
            long clock = (parts.size() > 2) ? ((Number) parts.get(2)).longValue() : 0;
            return new Counter(((Number) parts.get(0)).longValue(), runId, repaired, true, clock);
        }

        boolean markedBy(String runId) {
            return this.value >= 0 && this.runId.equals(runId);
        }

        /**
         * Whether the node's counter shows no grant: none, zero, or still what its last repair set (each grant
         * raises the counters of a quorum above it).
         */
        boolean sawNoGrant() {
            return this.value <= 0 || this.value == this.repaired;
        }

        /** A cluster node's answer: only the clock it read, untrusted (its locks' counters are not read). */
        Counter clockOnly() {
            return new Counter(-1, "", -1, false, this.clock);
        }

        Counter untrusted() {
            return new Counter(this.value, this.runId, this.repaired, false, this.clock);
        }

    }

}
