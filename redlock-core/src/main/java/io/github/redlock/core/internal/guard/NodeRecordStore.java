package io.github.redlock.core.internal.guard;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.node.ServerInfo;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The restart check's input and output on the nodes, for {@link RestartGuard}: this client's records of each node's
 * server process, written to the other nodes ({@link #write}); what a check reads of them all at once ({@link
 * #evidence}); and each node's kept-data marker ({@link #mark}). Every command times out after
 * {@link #TIMEOUT_MILLIS}; one that failed or timed out is no answer, and no exception leaves this class.
 * <p>
 * Record keys are {@code <prefix> 0xFF node:<host:port>}, the marker's {@code <prefix> 0xFF kept-since}: the separator
 * byte 0xFF is never in UTF-8, so no lock's key is one of them. Records are keyed by the node's address as configured:
 * clients that name one node differently (e.g. {@code localhost} and {@code 127.0.0.1}) do not see each other's records
 * of it.
 * <p>
 * A marker names the server process it was written under ({@code run_id@server}), by script like the locks' writes. A
 * node that votes holds every key of every lease that may depend on it; one still in quarantine may not, so no marker is
 * set then, and a node that comes back with the data of a quarantined process is quarantined again; so is a promoted
 * replica, whose marker came from its former master by replication. The configuration of a new process alone proves
 * nothing: a new directory, a container without its volume, append-only logging turned on after the crash.
 */
final class NodeRecordStore {

    /** How long a node's answers to the check may take: a frozen node is checked again when it reconnects. */
    static final long TIMEOUT_MILLIS = 2_000;

    /** A command that failed or timed out. */
    private static final Object NO_ANSWER = new Object();

    private final RedisNodeClient[] nodes;

    private final byte[][] recordKeys;

    /** Each node's marker of the server process since which it kept its data, on the node itself. */
    private final byte[] markerKey;

    private final byte[] maxTtl;

    private final byte[] quarantine;

    private final long maxTtlMillis;

    private final long quarantineMillis;

    NodeRecordStore(RedisNodeClient[] nodes, String keyPrefix, long maxTtlMillis, long quarantineMillis) {
        this.nodes = nodes;
        this.maxTtlMillis = maxTtlMillis;
        this.quarantineMillis = quarantineMillis;
        this.maxTtl = ascii(Long.toString(maxTtlMillis));
        this.quarantine = ascii(Long.toString(quarantineMillis));
        this.recordKeys = new byte[nodes.length][];
        for (int i = 0; i < nodes.length; i++) {
            this.recordKeys[i] = internalKey(keyPrefix, "node:" + nodes[i].name());
        }
        this.markerKey = internalKey(keyPrefix, "kept-since");
    }

    /** The prefix, the separator byte 0xFF and the name. */
    private static byte[] internalKey(String keyPrefix, String name) {
        byte[] prefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
        byte[] suffix = ascii(name);
        byte[] key = new byte[prefix.length + 1 + suffix.length];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        key[prefix.length] = LockType.PART_SEPARATOR;
        System.arraycopy(suffix, 0, key, prefix.length + 1, suffix.length);
        return key;
    }

    /**
     * Records, on every other connected node, that this client sees node {@code index} answer as {@code runId} now, with
     * this client's {@code maxTtl} and quarantine.
     * @return how many nodes confirmed the write (a failed one is written again at the next refresh)
     */
    CompletableFuture<Long> write(int index, String runId) {
        byte[] run = ascii(runId);
        List<CompletableFuture<Object>> writes = new ArrayList<>();
        for (int j = 0; j < this.nodes.length; j++) {
            if (j != index && this.nodes[j].isConnected()) {
                writes.add(answered(this.nodes[j].call(LuaScript.NODE_RECORD, new byte[][] { this.recordKeys[index] }, run, this.maxTtl,
                        this.quarantine)));
            }
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                .thenApply((done) -> writes.stream().map(CompletableFuture::join).filter((reply) -> reply != NO_ANSWER).count());
    }

    /**
     * What a check of node {@code index} reads of the others, all at once: each other node's {@code INFO}, and every
     * node's records as every other connected node holds them (the readers' own records tell whether their answers
     * count). A node whose connection dropped while it was read (a restart between two of its answers) gave no answer:
     * its records may come from one process and its {@code INFO} from the next.
     */
    CompletableFuture<Evidence> evidence(int index) {
        int count = this.nodes.length;
        long[] epochs = new long[count];
        for (int j = 0; j < count; j++) {
            epochs[j] = this.nodes[j].vote().current().epoch();
        }
        List<CompletableFuture<Object>> all = new ArrayList<>();
        List<List<CompletableFuture<Object>>> reads = new ArrayList<>(); // [whose records][read from]
        List<CompletableFuture<Object>> infos = new ArrayList<>();
        for (int j = 0; j < count; j++) {
            boolean asked = j != index && this.nodes[j].isConnected();
            CompletableFuture<Object> info = asked ? answered(this.nodes[j].serverInfo()) : CompletableFuture.completedFuture(NO_ANSWER);
            infos.add(info);
            all.add(info);
            List<CompletableFuture<Object>> records = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                CompletableFuture<Object> read = (k != j && this.nodes[k].isConnected())
                        ? answered(this.nodes[k].call(LuaScript.NODE_RECORDS, new byte[][] { this.recordKeys[j] }))
                        : CompletableFuture.completedFuture(NO_ANSWER);
                records.add(read);
                all.add(read);
            }
            reads.add(records);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply((done) -> {
            ServerInfo[] answers = new ServerInfo[count];
            NodeRecords[] records = new NodeRecords[count];
            boolean[][] answered = new boolean[count][count];
            boolean[] steady = new boolean[count];
            for (int j = 0; j < count; j++) {
                steady[j] = this.nodes[j].vote().current().epoch() == epochs[j];
            }
            for (int j = 0; j < count; j++) {
                answers[j] = (steady[j] && infos.get(j).join() instanceof ServerInfo info) ? info : null;
                List<Object> replies = new ArrayList<>();
                for (int k = 0; k < count; k++) {
                    Object reply = reads.get(j).get(k).join();
                    answered[j][k] = steady[k] && reply != NO_ANSWER;
                    if (answered[j][k]) {
                        replies.add(reply);
                    }
                }
                records[j] = NodeRecords.parse(replies, this.maxTtlMillis, this.quarantineMillis);
            }
            return new Evidence(answers, records, answered);
        });
    }

    /**
     * Reads node {@code index}'s marker of the server process since which its data has been complete and durable, and
     * sets it ({@code "set"}: only for a node that votes and is durable), deletes it ({@code "delete"}: a node that is not
     * durable) or leaves it ({@code "read"}). Sent only while the connection is the one of {@code epoch}, whose server
     * process {@code info} describes: a marker set on the process that came up after a reconnect, which no check has
     * seen, would vouch for data it may not have. (A command is never replayed on a new connection: one sent on the old
     * one reaches that process or fails.)
     * @param server the server (address) that answers for the node now, which the marker names
     * @return the marker as it was before, {@code run_id@server}, or null when it had none or did not answer
     */
    CompletableFuture<@Nullable String> mark(int index, long epoch, ServerInfo info, String action, String server) {
        if (this.nodes[index].vote().current().epoch() != epoch) {
            return CompletableFuture.completedFuture(null);
        }
        return answered(this.nodes[index].callForValue(LuaScript.KEPT_MARKER, new byte[][] { this.markerKey },
                ascii(QuarantinePolicy.markerOf(info.runId(), server)), ascii(action)))
                .thenApply((before) -> (before instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : null);
    }

    /** The reply, or {@link #NO_ANSWER} when the command failed or did not answer within {@link #TIMEOUT_MILLIS}. */
    private static CompletableFuture<Object> answered(CompletableFuture<?> command) {
        return command.<Object>thenApply((reply) -> reply).orTimeout(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .exceptionally((failure) -> NO_ANSWER);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * What a check read of the other nodes.
     * @param infos each node's {@code INFO}, null where it did not answer (and for the node checked)
     * @param records each node's records, from every other node that answered
     * @param answered {@code answered[j][k]}: whether node {@code k} answered the read of node {@code j}'s records
     */
    record Evidence(@Nullable ServerInfo[] infos, NodeRecords[] records, boolean[][] answered) {

        boolean answered(int whose, int reader) {
            return this.answered[whose][reader];
        }

    }

}
