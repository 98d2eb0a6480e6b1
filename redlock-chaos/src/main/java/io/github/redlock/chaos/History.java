package io.github.redlock.chaos;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The records of a chaos run, one tab-separated line each, and how to read them back. All times are
 * {@code System.nanoTime()} values, one clock for every process on a Linux machine. A run's directory holds:
 * <ul>
 * <li>{@code history-<client>.tsv}: the client's operations ({@link Operation}), storage writes ({@link Write}) and, when
 * the run holds a leader election, its candidate's events ({@link Lead});</li>
 * <li>{@code storage.tsv}: every write the storage logged, accepted or refused, in its own order ({@link StoredWrite});</li>
 * <li>{@code faults.tsv}: the faults injected ({@link Fault});</li>
 * <li>{@code run.properties}: the run's options and its times ({@code runStartNanos}, {@code faultsEndNanos},
 * {@code runEndNanos}, {@code maxTtlMillis}, {@code waitMillis}, {@code seed}, ...).</li>
 * </ul>
 */
final class History {

    /**
     * The lock key of the leader election ({@link LeaderCandidate}): an exclusive lock of the {@code redlock:} prefix, which
     * no worker thread draws. Its terms are recorded as {@link Kind#EXCLUSIVE} operations, so that two leaders at once are an
     * overlap like any other.
     */
    static final String LEADER_KEY = "leader";

    private History() {
    }

    /** What a critical section locks. Locks of different kinds never exclude each other, even with the same key. */
    enum Kind {

        /** An exclusive lock held for less than its ttl. */
        EXCLUSIVE,

        /** An exclusive lock extended automatically while held (same keys as {@link #EXCLUSIVE}). */
        EXTENDED,

        /** The read lock of a read-write lock: readers share it. */
        READ,

        /** The write lock of a read-write lock (same keys as {@link #READ}). */
        WRITE,

        /** An exclusive lock of a fenced Redlock, whose writes carry the fencing token to the storage. */
        FENCED;

        /** Whether a holder of this kind excludes every other holder of the same lock key. */
        boolean exclusive() {
            return this != READ;
        }

        /** The lock key of the given index ({@code x:3}, {@code rw:3}, {@code f:3}): kinds that share keys share a lock. */
        String lockKey(int index) {
            return switch (this) {
                case EXCLUSIVE, EXTENDED -> "x:";
                case READ, WRITE -> "rw:";
                case FENCED -> "f:";
            } + index;
        }

        /** The key prefix of the Redlock that takes locks of this kind: the fenced one has its own. */
        String keyPrefix() {
            return (this == FENCED) ? "fenced:" : "redlock:";
        }

    }

    /**
     * One acquisition: {@code op <client> <thread> <lockKey> <kind> <startNanos> <endNanos> <outcome> <leaseToken>
     * <fencingToken> <validEndNanos> <releaseNanos>}. The lock key names the lock, the same for every kind that
     * shares it ({@code x:1} for {@code EXCLUSIVE}/{@code EXTENDED}, {@code rw:1} for {@code READ}/{@code WRITE},
     * {@code f:1} for {@code FENCED}). For a grant, {@code endNanos} is when the acquisition returned;
     * {@code validEndNanos} the last end of validity the client knew of (the grant plus its remaining validity,
     * later raised by extensions it saw); {@code releaseNanos} when its release began. For other outcomes the
     * token is {@code -} and the times after {@code endNanos} are 0.
     */
    record Operation(int client, int thread, String lockKey, Kind kind, long startNanos, long endNanos, Outcome outcome,
            String leaseToken, long fencingToken, long validEndNanos, long releaseNanos) {

        /** Whether the lock was granted. */
        boolean granted() {
            return this.outcome == Outcome.GRANTED;
        }

        /** When the holder stopped believing it held the lock: its release or the end of its validity. */
        long heldUntilNanos() {
            return Math.min(this.validEndNanos, this.releaseNanos);
        }

        String line() {
            return String.join("\t", "op", Integer.toString(this.client), Integer.toString(this.thread), this.lockKey,
                    this.kind.name(), Long.toString(this.startNanos), Long.toString(this.endNanos), this.outcome.name(),
                    this.leaseToken, Long.toString(this.fencingToken), Long.toString(this.validEndNanos),
                    Long.toString(this.releaseNanos));
        }

        static Operation parse(String[] f) {
            return new Operation(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], Kind.valueOf(f[4]), Long.parseLong(f[5]),
                    Long.parseLong(f[6]), Outcome.valueOf(f[7]), f[8], Long.parseLong(f[9]), Long.parseLong(f[10]), Long.parseLong(f[11]));
        }

    }

    /** How an acquisition ended. */
    enum Outcome {

        /** The lock was granted. */
        GRANTED,

        /** Not granted within the wait time. */
        REFUSED,

        /** The acquisition failed with an exception. */
        ERROR

    }

    /**
     * A write to the storage by a holder, as the client saw it: {@code write <client> <thread> <lockKey>
     * <leaseToken> <fencingToken> <sentNanos> <answeredNanos> <seq> <accepted>}; {@code seq} is the storage's
     * order of the write, {@code accepted} 1 or 0 (refused: its fencing token was older than one the storage saw).
     */
    record Write(int client, int thread, String lockKey, String leaseToken, long fencingToken, long sentNanos, long answeredNanos,
            long seq, boolean accepted) {

        String line() {
            return String.join("\t", "write", Integer.toString(this.client), Integer.toString(this.thread), this.lockKey,
                    this.leaseToken, Long.toString(this.fencingToken), Long.toString(this.sentNanos),
                    Long.toString(this.answeredNanos), Long.toString(this.seq), this.accepted ? "1" : "0");
        }

        static Write parse(String[] f) {
            return new Write(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], f[4], Long.parseLong(f[5]), Long.parseLong(f[6]),
                    Long.parseLong(f[7]), Long.parseLong(f[8]), "1".equals(f[9]));
        }

    }

    /**
     * A write as the storage logged it, in its own order: {@code <seq> <lockKey> <leaseToken>
     * <fencingToken> <accepted>}. A fencing token of -1 means the write carried none (unfenced locks, or fencing
     * off): the storage accepts it unchecked.
     */
    record StoredWrite(long seq, String lockKey, String leaseToken, long fencingToken, boolean accepted) {

        static StoredWrite parse(String[] f) {
            return new StoredWrite(Long.parseLong(f[0]), f[1], f[2], Long.parseLong(f[3]), "1".equals(f[4]));
        }

    }

    /**
     * A fault: {@code <kind> <startNanos> <endNanos> <detail>}, e.g. {@code NODE_PAUSE 123 456 node 2 for 3000 ms}.
     */
    record Fault(FaultKind kind, long startNanos, long endNanos, String detail) {

        private static final Pattern RESTARTS = Pattern.compile("restarts at ((?:\\+\\d+(?:, )?)+) ms");

        String line() {
            return String.join("\t", this.kind.name(), Long.toString(this.startNanos), Long.toString(this.endNanos), this.detail);
        }

        static Fault parse(String[] f) {
            return new Fault(FaultKind.valueOf(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), (f.length > 3) ? f[3] : "");
        }

        /**
         * When each node was restarted, in ms after the fault began, for a fault whose detail lists them
         * ({@link #restarts(List)}, e.g. {@link FaultKind#ROLLING_RESTART_ALL}); empty for the others.
         */
        List<Long> restartOffsetsMillis() {
            Matcher matcher = RESTARTS.matcher(this.detail);
            if (!matcher.find()) {
                return List.of();
            }
            return Arrays.stream(matcher.group(1).split(",")).map(String::trim).map((offset) -> Long.valueOf(offset.substring(1))).toList();
        }

        /** The part of a fault's detail that lists its restarts, which {@link #restartOffsetsMillis()} reads back. */
        static String restarts(List<Long> offsetsMillis) {
            return "restarts at " + offsetsMillis.stream().map((offset) -> "+" + offset).collect(Collectors.joining(", ")) + " ms";
        }


    }

    /** What a candidate of the leader election saw. */
    enum LeadEvent {

        /** It was granted the leader lock: a term began (the token names the term). */
        GAINED,

        /** An automatic extension of its lease succeeded. */
        EXTENDED,

        /** An automatic extension of its lease failed (it is retried while a quarter of the ttl remains). */
        NOT_EXTENDED,

        /** A node answered a repair of its lease (the detail: the node and the answer, {@code ok} or another outcome). */
        REPAIR,

        /** Its lease was lost before it let go (the detail: why): its term ended against its will. */
        LOST,

        /** It let go of the lease as the run stopped: its term ended on its own terms. */
        RESIGNED,

        /** The run stopped; the detail is how many times it asked for the leader lock. */
        ATTEMPTS

    }

    /**
     * An event of a candidate of the leader election: {@code lead <client> <event> <nanos> <leaseToken> <detail>}; the token
     * is the term's ({@code -} for {@link LeadEvent#ATTEMPTS}).
     */
    record Lead(int client, LeadEvent event, long nanos, String leaseToken, String detail) {

        String line() {
            return String.join("\t", "lead", Integer.toString(this.client), this.event.name(), Long.toString(this.nanos), this.leaseToken,
                    this.detail);
        }

        static Lead parse(String[] f) {
            return new Lead(Integer.parseInt(f[1]), LeadEvent.valueOf(f[2]), Long.parseLong(f[3]), f[4], (f.length > 5) ? f[5] : "");
        }

    }

    /** Splits a line into its fields. */
    static String[] fields(String line) {
        return line.split("\t", -1);
    }

    /** The lines of a history file that are operations. */
    static List<Operation> operations(List<String> lines) {
        return lines.stream().filter((line) -> line.startsWith("op\t")).map((line) -> Operation.parse(fields(line))).toList();
    }

    /** The lines of a history file that are events of a leader election's candidate. */
    static List<Lead> leads(List<String> lines) {
        return lines.stream().filter((line) -> line.startsWith("lead\t")).map((line) -> Lead.parse(fields(line))).toList();
    }

    /** The lines of a history file that are writes. */
    static List<Write> writes(List<String> lines) {
        return lines.stream().filter((line) -> line.startsWith("write\t")).map((line) -> Write.parse(fields(line))).toList();
    }

}
