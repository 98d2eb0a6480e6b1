package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fencing tokens: each node keeps one counter for all locks (one key, so counters never grow with the number
 * of keys ever locked). Where a fenced acquisition sets its key, the node raises its counter by one and answers
 * it; the lease's token is the largest answer of the quorum; a second round writes the token back to every
 * node that still holds the key (the counter becomes at least the token), and the lease is granted only if a
 * quorum confirmed. An acquisition B that began after an acquisition A returned is granted by a quorum that
 * shares a node with A's confirming quorum; there B's raise came after A's write-back, so B's token is larger.
 * No clock is involved.
 * <p>
 * A node that restarts empty loses its counter. So, before a node without a counter votes on a new connection,
 * its counter is raised to the largest of the other nodes' ({@link #raiseFloor}), read from at least
 * {@code N - quorum + 1} of them (more are waited for, within a bound). With at most {@code N - quorum} nodes
 * down or restarted, a confirming quorum of every earlier grant keeps at least one node that answers with its
 * counter intact; with more, the node waits. The counter is created by that repair, so a node that has one was
 * repaired (or never lost it) since its server started. A node that loses its counter without a dropped
 * connection (a {@code DEL} or {@code FLUSHALL} by hand, or eviction under an {@code allkeys-*} policy) is not
 * noticed, and the guarantee fails for it; so is a restart between a grant's confirmation on a node and the
 * grant's return, before the client learns of it.
 */
final class Fencing {

    /** How long a node's answer to a read of its counter may take. */
    private static final long READ_TIMEOUT_MILLIS = 2_000;

    private final RedisNodeClient[] nodes;

    private final byte[] counterKey;

    Fencing(RedisNodeClient[] nodes, String keyPrefix) {
        this.nodes = nodes;
        // The separator byte 0xFF never occurs in UTF-8, so no lock's key is the counter.
        byte[] prefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
        byte[] name = "fencing-counter".getBytes(StandardCharsets.US_ASCII);
        this.counterKey = new byte[prefix.length + 1 + name.length];
        System.arraycopy(prefix, 0, this.counterKey, 0, prefix.length);
        this.counterKey[prefix.length] = LockType.PART_SEPARATOR;
        System.arraycopy(name, 0, this.counterKey, prefix.length + 1, name.length);
    }

    /** The nodes' counter key: the prefix, the byte 0xFF, {@code fencing-counter}. */
    byte[] counterKey() {
        return this.counterKey;
    }

    /** The candidate token of an acquisition that reached its quorum: the largest counter a granting node answered. */
    static long candidate(QuorumCall acquisition, int nodeCount) {
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
     * yes while it still holds the lease's key. Sends directly: from an I/O thread it may overtake a command that
     * another thread queued on the same connection, which only makes that node say no.
     */
    static QuorumCall confirm(NodeSet nodes, LockType.Keys keys, byte[] token, long candidate, QuorumCall acquisition) {
        QuorumCall call = nodes.newCall("confirm-fencing");
        byte[][] args = { token, Long.toString(candidate).getBytes(StandardCharsets.US_ASCII) };
        for (int i = 0; i < nodes.size(); i++) {
            if (acquisition.maySetOn(i)) {
                nodes.node(i).eval(LuaScript.CONFIRM_FENCING, keys.fence(), args, call, i);
            }
            else {
                call.record(i, NodeReply.NOT_SENT);
            }
        }
        return call;
    }

    /**
     * Before a node that (re)connected votes: a node that has a counter keeps it (a client set it since the
     * server started, so it was repaired or never lost); a node without one gets the largest counter of the
     * other nodes, read from at least {@code N - quorum + 1} of them.
     * @return whether the node may vote; false when too few other nodes answered, and it must not vote yet
     */
    CompletableFuture<Boolean> raiseFloor(int index) {
        byte[][] keys = { this.counterKey };
        return this.nodes[index].callForLong(LuaScript.FENCING_FLOOR, keys).orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .thenCompose((own) -> (own >= 0) ? CompletableFuture.completedFuture(true) : raiseToPeers(index))
                .exceptionally((failure) -> false);
    }

    private CompletableFuture<Boolean> raiseToPeers(int index) {
        byte[][] keys = { this.counterKey };
        List<CompletableFuture<Long>> reads = new ArrayList<>();
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && this.nodes[j].isConnected()) {
                reads.add(this.nodes[j].callForLong(LuaScript.FENCING_FLOOR, keys)
                        .orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).exceptionally((failure) -> null));
            }
        }
        int needed = this.nodes.length - (this.nodes.length / 2 + 1) + 1;
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenCompose((done) -> {
            List<Long> answers = reads.stream().map(CompletableFuture::join).filter((counter) -> counter != null).toList();
            if (answers.size() < needed) {
                return CompletableFuture.completedFuture(false);
            }
            long floor = answers.stream().mapToLong(Long::longValue).max().orElse(0);
            long highest = Math.max(0, floor);
            byte[] value = Long.toString(highest).getBytes(StandardCharsets.US_ASCII);
            return this.nodes[index].callForLong(LuaScript.FENCING_FLOOR, keys, value).orTimeout(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                    .thenApply((raised) -> raised >= highest);
        });
    }

}
