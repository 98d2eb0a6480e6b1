package io.github.redlock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the checker found in a run: its figures, the violations (all counted, the first ones of each kind kept
 * with their details), the known limit of unfenced locks, and the acquisition latencies with and without faults
 * under way. A run passes when it has no violation; stale writes from holders without a token do not fail it,
 * since nothing can refuse them.
 *
 * @param run the run's options and duration
 * @param grants the granted acquisitions by kind
 * @param refused the acquisitions not granted within their wait time
 * @param errors the acquisitions that failed with an exception
 * @param malformedLines the lines of the run's files that could not be read (e.g. cut short)
 * @param writes the writes the storage recorded, by lock key prefix ({@code f:}, {@code x:}, ...)
 * @param writesWithUnknownLease the accepted writes whose lease token no grant of the history has
 * @param staleWritesWithoutToken the stale writes accepted from holders of unfenced locks
 * @param faults the faults injected by kind
 * @param violationCounts how many violations of each kind were found (every kind present)
 * @param violationDetails the first violations of each kind
 * @param liveness whether liveness was checked, and over which tail
 * @param latencyUnderFaults the grants' acquisition latency when the acquisition met a fault window
 * @param latencyWithoutFaults the grants' acquisition latency otherwise
 * @param leadership what the run's leader election did, or {@link Leadership#NONE}
 */
record CheckReport(Run run, Map<History.Kind, Long> grants, long refused, long errors, long malformedLines,
        Map<String, Writes> writes, long writesWithUnknownLease, long staleWritesWithoutToken, Map<FaultKind, Long> faults,
        Map<Violation.Kind, Long> violationCounts, List<Violation> violationDetails, String liveness,
        Percentiles latencyUnderFaults, Percentiles latencyWithoutFaults, Leadership leadership) {

    /** How many violations of each kind {@link #text()} and {@link #markdown()} show in detail: 20 at most in all. */
    static final int DETAILS_SHOWN_PER_KIND = 5;

    /**
     * The run's options as {@code run.properties} gave them, and its duration.
     * @param maxTtls each client process's {@code maxTtl}, e.g. {@code "0: 2000 ms, 1: 500 ms"}
     * @param storage what the storage was and whether its fence was on, e.g. {@code "PostgreSQL 15.14, fence on"}
     */
    record Run(String seed, long durationMillis, String clients, String threads, String maxTtls, String fencing, String quarantine,
            String storage) {
    }

    /** The writes the storage accepted and refused. */
    record Writes(long accepted, long refused) {
    }

    /** Whether the run broke any property. */
    boolean hasViolations() {
        return this.violationCounts.values().stream().anyMatch((count) -> count > 0);
    }

    /** How many violations of the given kind the run has. */
    long violations(Violation.Kind kind) {
        return this.violationCounts.getOrDefault(kind, 0L);
    }

    /** The stale writes on fenced locks ({@code f:}) that the storage accepted: {@link Violation.Kind#STALE_WRITE}s. */
    long staleFencedWritesAccepted() {
        return violations(Violation.Kind.STALE_WRITE);
    }

    /** The writes on fenced locks ({@code f:}) that the storage's fence refused. */
    long fencedWritesRefused() {
        return this.writes.getOrDefault("f:", new Writes(0, 0)).refused();
    }

    /** Every acquisition of the history, whatever its outcome. */
    long operations() {
        return grantCount() + this.refused + this.errors;
    }

    long grantCount() {
        return this.grants.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The report as plain text, one figure a line, then the first violations. */
    String text() {
        StringBuilder text = new StringBuilder("Chaos run seed " + this.run.seed + "\n");
        figures().forEach((figure) -> text.append(figure[0]).append(": ").append(figure[1]).append('\n'));
        shownDetails().forEach((v) -> text.append("  ").append(v.line()).append('\n'));
        return text.toString();
    }

    /** The report as Markdown: a table of figures, then the first violations as a list. */
    String markdown() {
        StringBuilder md = new StringBuilder("# Chaos run seed " + this.run.seed + "\n\n");
        md.append(hasViolations() ? "**FAILED: the history has violations.**" : "**PASSED: no violation.**").append("\n\n");
        md.append("| Figure | Value |\n|---|---|\n");
        figures().forEach((figure) -> md.append("| ").append(figure[0]).append(" | ").append(cell(figure[1])).append(" |\n"));
        if (!this.violationDetails.isEmpty()) {
            md.append("\n## First violations of each kind\n\n");
            shownDetails().forEach((v) -> md.append("- **").append(v.kind()).append("** `").append(v.lockKey()).append("`: ")
                    .append(cell(v.detail())).append('\n'));
        }
        return md.toString();
    }

    private List<Violation> shownDetails() {
        List<Violation> shown = new ArrayList<>();
        for (Violation.Kind kind : Violation.Kind.values()) {
            this.violationDetails.stream().filter((v) -> v.kind() == kind).limit(DETAILS_SHOWN_PER_KIND).forEach(shown::add);
        }
        return shown;
    }

    private List<String[]> figures() {
        List<String[]> figures = new ArrayList<>();
        figures.add(figure("Duration", String.format(Locale.ROOT, "%.1f s", this.run.durationMillis / 1000.0)));
        figures.add(figure("Clients x threads", this.run.clients + " x " + this.run.threads));
        figures.add(figure("Max-ttl by client", this.run.maxTtls));
        figures.add(figure("Fencing, quarantine", this.run.fencing + ", " + this.run.quarantine));
        figures.add(figure("Storage", this.run.storage));
        figures.add(figure("Acquisitions", operations() + " (" + grantCount() + " granted, " + this.refused + " refused, "
                + this.errors + " errors)"));
        figures.add(figure("Grants by kind", this.grants.isEmpty() ? "none" : counts(this.grants)));
        long accepted = this.writes.values().stream().mapToLong(Writes::accepted).sum();
        long refusedWrites = this.writes.values().stream().mapToLong(Writes::refused).sum();
        String byPrefix = this.writes.entrySet().stream()
            .map((e) -> e.getKey() + " " + e.getValue().accepted() + "/" + e.getValue().refused())
            .collect(Collectors.joining(", "));
        figures.add(figure("Writes", accepted + " accepted, " + refusedWrites + " refused"
                + (byPrefix.isEmpty() ? "" : " (accepted/refused by lock: " + byPrefix + ")")));
        Writes fenced = this.writes.getOrDefault("f:", new Writes(0, 0));
        figures.add(figure("Fenced writes (f:)", fenced.accepted() + " accepted, " + fenced.refused() + " refused by the storage's fence, "
                + staleFencedWritesAccepted() + " stale accepted"));
        figures.add(figure("Accepted writes with an unknown lease token", Long.toString(this.writesWithUnknownLease)));
        figures.add(figure("Faults injected", this.faults.values().stream().mapToLong(Long::longValue).sum()
                + (this.faults.isEmpty() ? "" : " (" + counts(this.faults) + ")")));
        figures.add(figure("Violations", this.violationCounts.values().stream().mapToLong(Long::longValue).sum() + " ("
                + counts(this.violationCounts) + ")"));
        figures.add(figure("Stale writes accepted from holders without a token (a limit, not a violation)",
                Long.toString(this.staleWritesWithoutToken)));
        figures.add(figure("Liveness", this.liveness));
        if (this.leadership.held()) {
            figures.add(figure("Leader election", this.leadership.text()));
            this.leadership.losses().forEach((loss) -> figures.add(figure("Leader lease lost", loss)));
        }
        figures.add(figure("Acquisition latency under faults", this.latencyUnderFaults.text()));
        figures.add(figure("Acquisition latency without faults", this.latencyWithoutFaults.text()));
        if (this.malformedLines > 0) {
            figures.add(figure("Malformed lines skipped", Long.toString(this.malformedLines)));
        }
        return figures;
    }

    private static String[] figure(String name, String value) {
        return new String[] { name, value };
    }

    private static String counts(Map<?, Long> counts) {
        return counts.entrySet().stream().map((e) -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }

    private static String cell(String value) {
        return value.replace("|", "\\|");
    }

}
