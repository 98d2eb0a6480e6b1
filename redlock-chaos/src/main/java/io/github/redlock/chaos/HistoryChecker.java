package io.github.redlock.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Operation;
import io.github.redlock.chaos.History.StoredWrite;

/**
 * Checks a chaos run's merged history, Jepsen's way: after the run, over every operation of every client. It
 * looks for two holders of a lock at once ({@link Violation.Kind#OVERLAP}), fencing tokens that do not grow with
 * real time ({@link Violation.Kind#FENCING_ORDER}), stale fenced writes the storage accepted
 * ({@link Violation.Kind#STALE_WRITE}) and locks never acquired again once the faults stopped
 * ({@link Violation.Kind#LIVENESS}). Every check sorts and sweeps, O(n log n) in the operations, so that a run of
 * a million acquisitions is checked in seconds. Longer than most classes: it holds the four checks, which share
 * the history, the run's times and the violations found, and nothing else (the files are read by {@link RunFiles},
 * the report and the picture made by {@link CheckReport} and {@link Timeline}).
 */
final class HistoryChecker {

    /** How many violations of each kind keep their details; all are counted. */
    static final int DETAILS_KEPT = 100;

    private final RunFiles files;

    private final long runStart;

    private final long faultsEnd;

    private final long runEnd;

    private final Map<String, List<Operation>> grantsByKey = new TreeMap<>();

    private final Map<Violation.Kind, Long> violationCounts = new EnumMap<>(Violation.Kind.class);

    private final List<Violation> violations = new ArrayList<>();

    private HistoryChecker(RunFiles files) {
        this.files = files;
        this.runStart = files.nanos("runStartNanos", files.operations.stream().mapToLong(Operation::startNanos).min().orElse(0));
        this.runEnd = files.nanos("runEndNanos", files.operations.stream().mapToLong(Operation::endNanos).max().orElse(this.runStart));
        this.faultsEnd = files.nanos("faultsEndNanos", files.faults.stream().mapToLong(Fault::endNanos).max().orElse(this.runStart));
        files.operations.stream().filter(Operation::granted)
            .forEach((op) -> this.grantsByKey.computeIfAbsent(op.lockKey(), (key) -> new ArrayList<>()).add(op));
        for (Violation.Kind kind : Violation.Kind.values()) {
            this.violationCounts.put(kind, 0L);
        }
    }

    /** Checks the run in the given directory; missing files count as empty. */
    static CheckReport check(Path runDirectory) throws IOException {
        return new HistoryChecker(RunFiles.read(runDirectory)).report();
    }

    /**
     * Checks the run directory given as the only argument, prints the report, writes {@code report.md} and
     * {@code timeline.svg} into the directory and exits with {@link #run(String[])}'s status.
     */
    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true"); // the timeline is drawn off-screen
        System.exit(run(args));
    }

    /** Does what {@link #main(String[])} does but returns the exit status: 1 on a violation, 2 on bad usage, else 0. */
    static int run(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("Usage: HistoryChecker <run directory>, e.g. target/chaos/run-42");
            return 2;
        }
        CheckReport report = checkAndWrite(Path.of(args[0]));
        System.out.print(report.text());
        return exitStatus(report);
    }

    /** Checks the run in the given directory, and writes {@code report.md} and {@code timeline.svg} into it. */
    static CheckReport checkAndWrite(Path directory) throws IOException {
        HistoryChecker checker = new HistoryChecker(RunFiles.read(directory));
        CheckReport report = checker.report();
        Files.writeString(directory.resolve("report.md"), report.markdown());
        String title = String.format(Locale.ROOT, "Chaos run seed %s, %.1f s", report.run().seed(), report.run().durationMillis() / 1000.0);
        Files.writeString(directory.resolve("timeline.svg"),
                Timeline.svg(title, checker.runStart, checker.runEnd, checker.files.operations, checker.files.faults));
        return report;
    }

    /** The exit status for a report: 1 when it has a violation, else 0. */
    static int exitStatus(CheckReport report) {
        return report.hasViolations() ? 1 : 0;
    }

    private CheckReport report() {
        this.grantsByKey.values().forEach(this::checkOverlaps);
        this.grantsByKey.values().forEach(this::checkFencingOrder);
        StaleWrites stale = checkStaleWrites();
        String liveness = checkLiveness();
        Map<History.Kind, Long> grants = new EnumMap<>(History.Kind.class);
        this.files.operations.stream().filter(Operation::granted).forEach((op) -> grants.merge(op.kind(), 1L, Long::sum));
        Map<FaultKind, Long> faults = new EnumMap<>(FaultKind.class);
        this.files.faults.forEach((fault) -> faults.merge(fault.kind(), 1L, Long::sum));
        Properties p = this.files.properties;
        CheckReport.Run run = new CheckReport.Run(p.getProperty("seed", "?"), (this.runEnd - this.runStart) / 1_000_000,
                p.getProperty("clients", "?"), p.getProperty("threads", "?"), maxTtls(p), p.getProperty("fencing", "?"),
                p.getProperty("quarantine", "?"), p.getProperty("storage", "?") + ", fence "
                        + (Boolean.parseBoolean(p.getProperty("storageFence", "true")) ? "on" : "OFF"));
        FaultWindows windows = new FaultWindows(this.files.faults);
        LongStream.Builder under = LongStream.builder();
        LongStream.Builder without = LongStream.builder();
        this.files.operations.stream().filter(Operation::granted).forEach((op) -> (windows.meets(op.startNanos(), op.endNanos())
                ? under : without).add(op.endNanos() - op.startNanos()));
        return new CheckReport(run, grants, count(History.Outcome.REFUSED), count(History.Outcome.ERROR), this.files.malformedLines,
                stale.writes, stale.unknownLease, stale.withoutToken, faults, this.violationCounts, List.copyOf(this.violations),
                liveness, Percentiles.ofNanos(under.build().toArray()), Percentiles.ofNanos(without.build().toArray()),
                Leadership.of(this.files.leads, this.grantsByKey.getOrDefault(History.LEADER_KEY, List.of()), this.files.faults,
                        this.runStart));
    }

    /**
     * Sweeps a lock's grants in the order they were granted, keeping the exclusive holder and the reader that held
     * the longest so far: a grant conflicts with some earlier one exactly when it conflicts with one of those two.
     * Each grant that overlaps an earlier conflicting one counts once, paired with that holder.
     */
    private void checkOverlaps(List<Operation> grants) {
        List<Operation> held = grants.stream().filter((op) -> heldUntil(op) > op.endNanos())
            .sorted(Comparator.comparingLong(Operation::endNanos)).toList();
        Operation writer = null;
        Operation reader = null;
        for (Operation op : held) {
            if (overlaps(writer, op)) {
                overlap(writer, op);
            }
            else if (op.kind().exclusive() && overlaps(reader, op)) {
                overlap(reader, op);
            }
            if (op.kind().exclusive() && (writer == null || heldUntil(op) > heldUntil(writer))) {
                writer = op;
            }
            else if (!op.kind().exclusive() && (reader == null || heldUntil(op) > heldUntil(reader))) {
                reader = op;
            }
        }
    }

    private static boolean overlaps(Operation earlier, Operation later) {
        return earlier != null && heldUntil(earlier) > later.endNanos() && !earlier.leaseToken().equals(later.leaseToken());
    }

    private void overlap(Operation a, Operation b) {
        violation(Violation.Kind.OVERLAP, b.lockKey(), String.format(Locale.ROOT, "%s held %s-%s ms and %s held %s-%s ms: both for %.1f ms",
                who(a), ms(a.endNanos()), ms(heldUntil(a)), who(b), ms(b.endNanos()), ms(heldUntil(b)),
                (Math.min(heldUntil(a), heldUntil(b)) - b.endNanos()) / 1e6));
    }

    /** When a holder stopped believing it held the lock; a grant never released held it to the end of its validity. */
    private static long heldUntil(Operation grant) {
        return (grant.releaseNanos() > 0) ? grant.heldUntilNanos() : grant.validEndNanos();
    }

    /**
     * Takes a lock's fenced grants in the order their acquisitions began, with the largest token of the grants
     * that had returned by then (sorted by return): each must get a larger token than that one.
     */
    private void checkFencingOrder(List<Operation> grants) {
        List<Operation> fenced = grants.stream().filter((op) -> op.kind() == History.Kind.FENCED && op.fencingToken() >= 0).toList();
        List<Operation> byEnd = fenced.stream().sorted(Comparator.comparingLong(Operation::endNanos)).toList();
        List<Operation> byStart = fenced.stream().sorted(Comparator.comparingLong(Operation::startNanos)).toList();
        int returned = 0;
        Operation largest = null;
        for (Operation op : byStart) {
            while (returned < byEnd.size() && byEnd.get(returned).endNanos() < op.startNanos()) {
                Operation done = byEnd.get(returned++);
                largest = (largest == null || done.fencingToken() > largest.fencingToken()) ? done : largest;
            }
            if (largest != null && op.fencingToken() <= largest.fencingToken() && !largest.leaseToken().equals(op.leaseToken())) {
                violation(Violation.Kind.FENCING_ORDER, op.lockKey(), String.format(Locale.ROOT,
                        "%s began acquiring at %s ms, after %s had been granted token %d at %s ms, yet got token %d at %s ms",
                        who(op), ms(op.startNanos()), who(largest), largest.fencingToken(), ms(largest.endNanos()),
                        op.fencingToken(), ms(op.endNanos())));
            }
        }
    }

    /** The storage's figures: writes by lock prefix, stale writes without a token, writes of unknown leases. */
    private record StaleWrites(Map<String, CheckReport.Writes> writes, long withoutToken, long unknownLease) {
    }

    /**
     * Walks the writes in the storage's order (its {@code seq}: for one lock, the order its writes committed in), keeping
     * per lock the accepted write whose holder was granted last: an accepted write from a holder granted before that one
     * (another lease) is stale. On fenced locks ({@code f:}) the storage should have refused it, and it should have refused
     * as well a write whose fencing token is below one it accepted earlier for the lock (a check of the storage's order
     * and the tokens alone, with no clock); on the others nothing could.
     */
    private StaleWrites checkStaleWrites() {
        Map<String, Operation> grantOfLease = new HashMap<>();
        this.grantsByKey.values().forEach((grants) -> grants.forEach((op) -> grantOfLease.put(op.leaseToken(), op)));
        Map<String, long[]> writes = new TreeMap<>();
        Map<String, StoredWrite> latest = new HashMap<>();
        Map<String, StoredWrite> highestToken = new HashMap<>();
        long withoutToken = 0;
        long unknownLease = 0;
        for (StoredWrite write : this.files.storage) {
            String key = write.lockKey();
            writes.computeIfAbsent(key.substring(0, key.indexOf(':') + 1), (prefix) -> new long[2])[write.accepted() ? 0 : 1]++;
            if (!write.accepted()) {
                continue;
            }
            StoredWrite highest = (key.startsWith("f:") && write.fencingToken() >= 0)
                    ? highestToken.merge(key, write, (a, b) -> (b.fencingToken() > a.fencingToken()) ? b : a) : null;
            Operation holder = grantOfLease.get(write.leaseToken());
            StoredWrite last = latest.get(key);
            Operation lastHolder = (last != null) ? grantOfLease.get(last.leaseToken()) : null;
            if (holder != null && lastHolder != null && holder.endNanos() < lastHolder.endNanos()
                    && !holder.leaseToken().equals(lastHolder.leaseToken())) {
                if (key.startsWith("f:")) {
                    violation(Violation.Kind.STALE_WRITE, key, String.format(Locale.ROOT,
                            "write seq %d (fencing token %d) of %s, granted at %s ms, accepted after write seq %d (fencing token %d) of %s, granted later at %s ms",
                            write.seq(), write.fencingToken(), who(holder), ms(holder.endNanos()), last.seq(), last.fencingToken(),
                            who(lastHolder), ms(lastHolder.endNanos())));
                }
                else {
                    withoutToken++;
                }
            }
            else if (highest != null && highest.fencingToken() > write.fencingToken()) {
                violation(Violation.Kind.STALE_WRITE, key, String.format(Locale.ROOT,
                        "write seq %d with fencing token %d (lease %s) accepted after write seq %d with the higher token %d (lease %s)",
                        write.seq(), write.fencingToken(), write.leaseToken(), highest.seq(), highest.fencingToken(), highest.leaseToken()));
            }
            else if (holder == null) {
                unknownLease++;
            }
            else {
                latest.put(key, write);
            }
        }
        Map<String, CheckReport.Writes> byPrefix = new TreeMap<>();
        writes.forEach((prefix, counts) -> byPrefix.put(prefix.isEmpty() ? "other" : prefix, new CheckReport.Writes(counts[0], counts[1])));
        return new StaleWrites(byPrefix, withoutToken, unknownLease);
    }

    /**
     * Liveness: a lock asked for once the faults stopped and the nodes can vote again (the quarantine and the longest
     * ttl after the last fault) is granted by the end of the allowance: that, a wait time and scheduling slack. The
     * quarantine is the one of the longest {@code maxTtl} of the fleet, which a restarted node waits for whichever
     * client checks it. A lock nobody asked for then proves nothing either way, so it is counted apart, never a
     * violation. The leader lock of a leader election is not checked: its leader holds it to the end by design, and what
     * the election did is {@link Leadership}'s.
     */
    private String checkLiveness() {
        long maxTtl = this.files.longestMaxTtlMillis();
        long waitMillis = this.files.millis("waitMillis");
        long recoveryMillis = (maxTtl + 1000 + maxTtl / 100 + 2) + maxTtl;
        long allowanceMillis = recoveryMillis + waitMillis + 3000;
        long windowEnd = this.faultsEnd + allowanceMillis * 1_000_000;
        long askedFrom = this.faultsEnd + recoveryMillis * 1_000_000;
        long askedUntil = windowEnd - waitMillis * 1_000_000;
        long tailMillis = (this.runEnd - this.faultsEnd) / 1_000_000;
        if (this.runEnd < windowEnd) {
            return "not checked: tail " + tailMillis + " ms < allowance " + allowanceMillis + " ms";
        }
        TreeSet<String> keys = new TreeSet<>(this.files.operations.stream().map(Operation::lockKey)
                .filter((key) -> !key.equals(History.LEADER_KEY)).collect(Collectors.toSet()));
        Set<String> asked = this.files.operations.stream().filter((op) -> op.startNanos() >= askedFrom && op.startNanos() <= askedUntil)
                .map(Operation::lockKey).filter(keys::contains).collect(Collectors.toSet());
        for (String key : keys) {
            List<Operation> grants = this.grantsByKey.getOrDefault(key, List.of());
            if (asked.contains(key) && grants.stream().noneMatch((op) -> op.endNanos() >= this.faultsEnd && op.endNanos() <= windowEnd)) {
                String last = grants.stream().filter((op) -> op.endNanos() < this.faultsEnd).max(Comparator.comparingLong(Operation::endNanos))
                    .map((op) -> "the last grant before was " + who(op) + " at " + ms(op.endNanos()) + " ms").orElse("no grant before");
                violation(Violation.Kind.LIVENESS, key, "asked for but not granted within " + allowanceMillis + " ms after the faults "
                        + "ended at " + ms(this.faultsEnd) + " ms; " + last);
            }
        }
        String notAsked = (asked.size() < keys.size()) ? "; " + (keys.size() - asked.size()) + " not asked for in that time" : "";
        return "checked: " + asked.size() + " locks asked for, each to be granted within " + allowanceMillis
                + " ms after the faults ended at " + ms(this.faultsEnd) + " ms (tail " + tailMillis + " ms)" + notAsked;
    }

    /** Each client's max-ttl, e.g. {@code "0: 2000 ms, 1: 500 ms"}; one for all when the run did not list them. */
    private static String maxTtls(Properties p) {
        String byClient = p.getProperty("clientMaxTtlMillis", "").trim();
        if (byClient.isEmpty()) {
            return (p.getProperty("maxTtlMillis") == null) ? "?" : p.getProperty("maxTtlMillis").trim() + " ms, every client";
        }
        String[] maxTtls = byClient.split(",");
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < maxTtls.length; i++) {
            shown.add(i + ": " + maxTtls[i].trim() + " ms");
        }
        return String.join(", ", shown);
    }

    private void violation(Violation.Kind kind, String lockKey, String detail) {
        if (this.violationCounts.merge(kind, 1L, Long::sum) <= DETAILS_KEPT) {
            this.violations.add(new Violation(kind, lockKey, detail));
        }
    }

    private long count(History.Outcome outcome) {
        return this.files.operations.stream().filter((op) -> op.outcome() == outcome).count();
    }

    private static String who(Operation op) {
        return "client " + op.client() + "/thread " + op.thread() + " (" + op.kind() + ", lease " + op.leaseToken() + ")";
    }

    private String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", (nanos - this.runStart) / 1e6);
    }

}
