package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.github.redlock.chaos.History.Kind;
import io.github.redlock.chaos.History.LeadEvent;
import io.github.redlock.chaos.History.Operation;
import io.github.redlock.chaos.History.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker over synthetic run directories: each property it guards is shown broken once, and the histories
 * that look like breaches but are not (readers together, a paused holder past its validity, a refused stale
 * write, a stale write nothing could refuse) are shown to pass; a leader election's figures are counted from its
 * candidates' events. Times are milliseconds since the run began.
 */
class HistoryCheckerTests {

    private static final long START = 7_000_000_000L;

    @TempDir
    Path directory;

    private final List<String> history = new ArrayList<>();

    private final List<String> storage = new ArrayList<>();

    private final List<String> faults = new ArrayList<>();

    private long faultsEndMillis = 2_000;

    private long runEndMillis = 4_000;

    /** Each client's max-ttl as {@code run.properties} lists it, or null for a run that does not list them. */
    private String clientMaxTtlMillis;

    @Test
    void aCleanHistoryHasNoViolation() throws IOException {
        this.runEndMillis = 20_000;
        grant(1, "x:1", Kind.EXCLUSIVE, "a", -1, 0, 10, 1_010, 500);
        grant(2, "x:1", Kind.EXTENDED, "b", -1, 20, 510, 3_000, 2_500);
        grant(1, "rw:1", Kind.READ, "c", -1, 0, 5, 1_005, 900);
        grant(2, "rw:1", Kind.READ, "d", -1, 0, 6, 1_006, 950);
        grant(1, "rw:1", Kind.WRITE, "e", -1, 100, 960, 1_960, 1_500);
        grant(1, "f:1", Kind.FENCED, "g", 1, 0, 10, 1_010, 400);
        grant(2, "f:1", Kind.FENCED, "h", 2, 5, 420, 1_420, 900);
        refused(2, "f:1", 0, 500);
        write("f:1", "g", 1, true);
        write("f:1", "h", 2, true);
        write("x:1", "a", -1, true);
        write("x:1", "b", -1, true);
        fault(FaultKind.NODE_PAUSE_LONG, 0, 1_500);
        for (String key : List.of("x:1", "rw:1", "f:1")) {
            grant(3, key, (key.startsWith("f")) ? Kind.FENCED : Kind.EXCLUSIVE, key + "-late", 3, 5_100, 5_110, 6_100, 5_600);
        }
        CheckReport report = check();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
        assertThat(report.violationCounts()).hasSize(4).allSatisfy((kind, count) -> assertThat(count).isZero());
        assertThat(report.operations()).isEqualTo(11);
        assertThat(report.refused()).isEqualTo(1);
        assertThat(report.liveness()).startsWith("checked: 3 locks asked for");
        assertThat(report.writes()).containsEntry("f:", new CheckReport.Writes(2, 0)).containsEntry("x:", new CheckReport.Writes(2, 0));
        assertThat(HistoryChecker.exitStatus(report)).isZero();
    }

    @Test
    void twoExclusiveHoldersAtOnceAreAnOverlap() throws IOException {
        grant(1, "x:1", Kind.EXCLUSIVE, "a", -1, 0, 100, 1_100, 900);
        grant(2, "x:1", Kind.EXTENDED, "b", -1, 0, 700, 1_700, 1_000);
        CheckReport report = check();
        assertThat(report.violations(Violation.Kind.OVERLAP)).isEqualTo(1);
        assertThat(report.violationDetails()).singleElement().satisfies((v) -> {
            assertThat(v.lockKey()).isEqualTo("x:1");
            assertThat(v.detail()).contains("lease a", "lease b", "100.0-900.0 ms", "700.0-1000.0 ms", "200.0 ms");
        });
        assertThat(HistoryChecker.exitStatus(report)).isEqualTo(1);
    }

    @Test
    void aReaderHoldingWhileAWriterHoldsIsAnOverlap() throws IOException {
        grant(1, "rw:1", Kind.READ, "r", -1, 0, 100, 1_100, 900);
        grant(2, "rw:1", Kind.WRITE, "w", -1, 0, 800, 1_800, 1_000);
        assertThat(check().violations(Violation.Kind.OVERLAP)).isEqualTo(1);
    }

    @Test
    void readersHoldingTogetherDoNotOverlap() throws IOException {
        grant(1, "rw:1", Kind.READ, "r1", -1, 0, 100, 1_100, 900);
        grant(2, "rw:1", Kind.READ, "r2", -1, 0, 200, 1_200, 1_000);
        grant(3, "rw:1", Kind.WRITE, "w", -1, 0, 1_001, 2_000, 1_500);
        assertThat(check().hasViolations()).isFalse();
    }

    @Test
    void aPausedHolderWhoseValidityEndedBeforeTheNextGrantDoesNotOverlapIt() throws IOException {
        grant(1, "x:1", Kind.EXCLUSIVE, "paused", -1, 0, 100, 1_100, 3_000);
        grant(2, "x:1", Kind.EXCLUSIVE, "next", -1, 200, 1_150, 2_150, 1_500);
        assertThat(check().hasViolations()).isFalse();
    }

    @Test
    void aFencingTokenNoLargerThanOneGrantedBeforeTheAcquisitionBeganIsAViolation() throws IOException {
        grant(1, "f:1", Kind.FENCED, "a", 7, 0, 100, 1_100, 200);
        grant(2, "f:1", Kind.FENCED, "b", 6, 50, 300, 1_300, 400);
        grant(3, "f:1", Kind.FENCED, "c", 7, 250, 500, 1_500, 600);
        CheckReport report = check();
        assertThat(report.violations(Violation.Kind.FENCING_ORDER)).as("b began before a returned; c after").isEqualTo(1);
        assertThat(report.violationDetails()).singleElement()
            .satisfies((v) -> assertThat(v.detail()).contains("lease c", "token 7 at 500.0 ms", "lease a", "began acquiring at 250.0 ms"));
    }

    @Test
    void aStaleWriteAcceptedOnAFencedLockIsAViolation() throws IOException {
        grant(1, "f:1", Kind.FENCED, "old", 1, 0, 100, 1_100, 1_100);
        grant(2, "f:1", Kind.FENCED, "new", 2, 0, 1_200, 2_200, 1_300);
        write("f:1", "new", 2, true);
        write("f:1", "old", 1, true);
        CheckReport report = check();
        assertThat(report.violations(Violation.Kind.STALE_WRITE)).isEqualTo(1);
        assertThat(report.violationDetails()).singleElement()
            .satisfies((v) -> assertThat(v.detail()).contains("write seq 2", "lease old", "write seq 1", "lease new", "1200.0 ms"));
    }

    @Test
    void aFencedWriteAcceptedWithATokenBelowOneTheStorageAcceptedBeforeIsAViolationWhateverTheClocksSay() throws IOException {
        // In the order of the grants' returns, "late" is the later holder; but the storage accepted its lower token after
        // the higher one, which its fence must refuse whoever holds what.
        grant(1, "f:1", Kind.FENCED, "early", 7, 0, 100, 1_100, 300);
        grant(2, "f:1", Kind.FENCED, "late", 5, 0, 400, 1_400, 600);
        write("f:1", "early", 7, true);
        write("f:1", "late", 5, true);
        write("f:1", "gone", 6, true); // a holder whose grant the history lacks (its process was killed): the tokens suffice
        CheckReport report = check();
        assertThat(report.staleFencedWritesAccepted()).isEqualTo(2);
        assertThat(report.violationDetails()).extracting(Violation::detail).containsExactly(
                "write seq 2 with fencing token 5 (lease late) accepted after write seq 1 with the higher token 7 (lease early)",
                "write seq 3 with fencing token 6 (lease gone) accepted after write seq 1 with the higher token 7 (lease early)");
        assertThat(report.writesWithUnknownLease()).isZero();
        assertThat(report.text()).contains("Fenced writes (f:): 3 accepted, 0 refused by the storage's fence, 2 stale accepted");
    }

    @Test
    void aStaleWriteAcceptedOnAnUnfencedLockIsCountedAsTheLimitNotAsAViolation() throws IOException {
        grant(1, "x:1", Kind.EXCLUSIVE, "old", -1, 0, 100, 1_100, 1_100);
        grant(2, "x:1", Kind.EXCLUSIVE, "new", -1, 0, 1_200, 2_200, 1_300);
        write("x:1", "new", -1, true);
        write("x:1", "old", -1, true);
        CheckReport report = check();
        assertThat(report.hasViolations()).isFalse();
        assertThat(report.staleWritesWithoutToken()).isEqualTo(1);
        assertThat(report.text()).contains("Stale writes accepted from holders without a token (a limit, not a violation): 1");
    }

    @Test
    void aStaleWriteTheStorageRefusedIsFine() throws IOException {
        grant(1, "f:1", Kind.FENCED, "old", 1, 0, 100, 1_100, 1_100);
        grant(2, "f:1", Kind.FENCED, "new", 2, 0, 1_200, 2_200, 1_300);
        write("f:1", "new", 2, true);
        write("f:1", "old", 1, false);
        write("f:1", "unknown", 3, true);
        CheckReport report = check();
        assertThat(report.hasViolations()).isFalse();
        assertThat(report.writes()).containsEntry("f:", new CheckReport.Writes(2, 1));
        assertThat(report.fencedWritesRefused()).isEqualTo(1);
        assertThat(report.staleFencedWritesAccepted()).isZero();
        assertThat(report.writesWithUnknownLease()).isEqualTo(1);
    }

    @Test
    void aLockNotGrantedAgainAfterTheFaultsIsALivenessViolation() throws IOException {
        this.runEndMillis = 20_000;
        grant(1, "x:1", Kind.EXCLUSIVE, "before", -1, 0, 1_000, 2_000, 1_500);
        grant(1, "x:2", Kind.EXCLUSIVE, "after", -1, 0, 3_000, 4_000, 3_500);
        refused(2, "x:1", 2_500, 3_000);
        refused(2, "x:1", 6_000, 6_500); // asked for once the nodes can vote again (5,012 ms), never granted
        CheckReport report = check();
        assertThat(report.violations(Violation.Kind.LIVENESS)).isEqualTo(1);
        assertThat(report.violationDetails()).singleElement().satisfies((v) -> {
            assertThat(v.lockKey()).isEqualTo("x:1");
            assertThat(v.detail()).contains("6512 ms", "lease before", "1000.0 ms");
        });
    }

    @Test
    void aLockNobodyAskedForAfterTheFaultsIsNoLivenessViolation() throws IOException {
        this.runEndMillis = 20_000;
        grant(1, "x:1", Kind.EXCLUSIVE, "before", -1, 0, 1_000, 2_000, 1_500);
        refused(2, "x:1", 2_500, 3_000); // before the restarted nodes may vote again: proves nothing
        grant(1, "x:2", Kind.EXCLUSIVE, "after", -1, 5_100, 5_110, 6_100, 5_600);
        CheckReport report = check();
        assertThat(report.hasViolations()).isFalse();
        assertThat(report.liveness()).startsWith("checked: 1 locks asked for").endsWith("1 not asked for in that time");
    }

    @Test
    void livenessWaitsForTheQuarantineOfTheLongestMaxTtlOfTheFleet() throws IOException {
        this.runEndMillis = 20_000;
        this.clientMaxTtlMillis = "1000,3000";
        grant(1, "x:1", Kind.EXCLUSIVE, "before", -1, 0, 1_000, 2_000, 1_500);
        // Asked for after the quarantine of a 1 s max-ttl (5,012 ms), but before a node restarted last may vote again
        // for the 3 s client (9,032 ms): that proves nothing, as a restarted node waits for the longest max-ttl.
        refused(2, "x:1", 6_000, 6_500);
        grant(1, "x:2", Kind.EXCLUSIVE, "after", -1, 9_100, 9_110, 10_100, 9_600);
        CheckReport report = check();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
        assertThat(report.liveness()).startsWith("checked: 1 locks asked for, each to be granted within 10532 ms");
        assertThat(report.text()).contains("Max-ttl by client: 0: 1000 ms, 1: 3000 ms");
    }

    @Test
    void livenessIsNotCheckedWhenTheRunEndsWithinTheAllowance() throws IOException {
        refused(2, "x:1", 2_500, 3_000);
        CheckReport report = check();
        assertThat(report.hasViolations()).isFalse();
        assertThat(report.liveness()).isEqualTo("not checked: tail 2000 ms < allowance 6512 ms");
    }

    @Test
    void latencyIsSplitByWhetherTheAcquisitionMetAFault() throws IOException {
        fault(FaultKind.CLIENT_PAUSE, 1_000, 1_100);
        grant(1, "x:1", Kind.EXCLUSIVE, "a", -1, 900, 1_000, 1_100, 1_050);
        grant(1, "x:1", Kind.EXCLUSIVE, "b", -1, 1_060, 1_070, 1_500, 1_080);
        grant(1, "x:1", Kind.EXCLUSIVE, "c", -1, 1_101, 1_104, 1_500, 1_200);
        CheckReport report = check();
        assertThat(report.latencyUnderFaults()).isEqualTo(new Percentiles(2, 10, 100, 100));
        assertThat(report.latencyWithoutFaults()).isEqualTo(new Percentiles(1, 3, 3, 3));
        assertThat(report.faults()).containsEntry(FaultKind.CLIENT_PAUSE, 1L);
    }

    @Test
    void runWritesTheReportAndTimelineAndFailsOnAViolation() throws IOException {
        grant(1, "x:1", Kind.EXCLUSIVE, "a", -1, 0, 100, 1_100, 900);
        grant(2, "x:1", Kind.EXCLUSIVE, "b", -1, 0, 700, 1_700, 1_000);
        check();
        assertThat(HistoryChecker.run(new String[] { this.directory.toString() })).isEqualTo(1);
        assertThat(this.directory.resolve("report.md")).content().contains("FAILED", "| Violations | 1 (OVERLAP 1, FENCING_ORDER 0");
        assertThat(this.directory.resolve("timeline.svg")).content().startsWith("<?xml");
    }

    @Test
    void anEmptyRunDirectoryPasses() throws IOException {
        assertThat(HistoryChecker.run(new String[] { this.directory.toString() })).isZero();
    }

    @Test
    void aLeaderThatKeepsItsLeaseThroughRestartsHasOneTermAndItsLockIsNoLivenessViolation() throws IOException {
        this.runEndMillis = 60_000;
        this.faultsEndMillis = 42_000;
        this.faults.add(new History.Fault(FaultKind.ROLLING_RESTART_ALL, nanos(2_000), nanos(42_000),
                "every node restarted; " + History.Fault.restarts(List.of(0L, 8_000L, 16_000L, 24_000L, 32_000L)) + "; counted again")
                .line());
        lead(1, LeadEvent.GAINED, 100, "t1", "");
        for (int i = 1; i <= 40; i++) {
            lead(1, LeadEvent.EXTENDED, 100 + i * 1_000, "t1", "");
        }
        lead(1, LeadEvent.NOT_EXTENDED, 20_500, "t1", "");
        for (int node = 0; node < 5; node++) {
            lead(1, LeadEvent.REPAIR, 6_000 + node * 8_000, "t1", "127.0.0.1:700" + node + " ok");
        }
        lead(1, LeadEvent.REPAIR, 6_500, "t1", "127.0.0.1:7000 timeout");
        lead(1, LeadEvent.RESIGNED, 59_000, "t1", "");
        lead(1, LeadEvent.ATTEMPTS, 59_001, "-", "1");
        lead(2, LeadEvent.ATTEMPTS, 59_001, "-", "390");
        grant(1, History.LEADER_KEY, Kind.EXCLUSIVE, "t1", -1, 90, 100, 59_900, 59_000);
        refused(2, History.LEADER_KEY, 46_000, 46_010); // a second candidate after the faults: the leader holds the lock
        grant(3, "x:1", Kind.EXCLUSIVE, "late", -1, 46_000, 46_010, 47_000, 46_500);
        CheckReport report = check();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
        assertThat(report.liveness()).startsWith("checked: 1 locks asked for");
        assertThat(report.leadership()).satisfies((leadership) -> {
            assertThat(leadership.terms()).isEqualTo(1);
            assertThat(leadership.leaderWhenFaultsBegan()).isEqualTo(1);
            assertThat(leadership.changes()).isZero();
            assertThat(leadership.lost()).isZero();
            assertThat(leadership.extensions()).isEqualTo(40);
            assertThat(leadership.failedExtensions()).isEqualTo(1);
            assertThat(leadership.repairs()).isEqualTo(5);
            assertThat(leadership.repairFailures()).isEqualTo(1);
            assertThat(leadership.attempts()).isEqualTo(391);
        });
        assertThat(report.text()).contains("Leader election: 1 terms (client 1 led when the faults began), 0 begun since (changes of "
                + "leader), 0 leases lost; 40 extensions (1 failed), 5 repairs answered (1 not), 391 attempts by the candidates");
    }

    @Test
    void aLeaderThatLosesItsLeaseAtTheThirdRestartIsCountedWithTheNextLeader() throws IOException {
        this.runEndMillis = 60_000;
        this.faultsEndMillis = 42_000;
        this.faults.add(new History.Fault(FaultKind.ROLLING_RESTART_ALL, nanos(2_000), nanos(42_000),
                "every node restarted; " + History.Fault.restarts(List.of(0L, 8_000L, 16_000L, 24_000L, 32_000L)) + "; counted again")
                .line());
        lead(1, LeadEvent.GAINED, 100, "t1", "");
        lead(1, LeadEvent.LOST, 19_000, "t1", "a majority of nodes no longer hold it");
        grant(1, History.LEADER_KEY, Kind.EXCLUSIVE, "t1", -1, 90, 100, 19_500, 19_000);
        lead(2, LeadEvent.GAINED, 20_000, "t2", "");
        lead(2, LeadEvent.RESIGNED, 59_000, "t2", "");
        grant(2, History.LEADER_KEY, Kind.EXCLUSIVE, "t2", -1, 19_990, 20_000, 59_900, 59_000);
        CheckReport report = check();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
        assertThat(report.leadership().terms()).isEqualTo(2);
        assertThat(report.leadership().changes()).isEqualTo(1);
        assertThat(report.leadership().lossRestarts()).containsExactly(3);
        assertThat(report.text()).contains("Leader lease lost: client 1 lost lease t1 at 19000.0 ms, at restart 3 of 5 of "
                + "ROLLING_RESTART_ALL: a majority of nodes no longer hold it");
    }

    @Test
    void twoLeadersAtOnceAreAnOverlap() throws IOException {
        grant(1, History.LEADER_KEY, Kind.EXCLUSIVE, "t1", -1, 0, 100, 3_000, 3_000);
        grant(2, History.LEADER_KEY, Kind.EXCLUSIVE, "t2", -1, 0, 1_000, 3_500, 3_500);
        assertThat(check().violations(Violation.Kind.OVERLAP)).isEqualTo(1);
    }

    @Test
    void aRunWithoutALeaderElectionReportsNone() throws IOException {
        grant(1, "x:1", Kind.EXCLUSIVE, "a", -1, 0, 100, 1_100, 900);
        CheckReport report = check();
        assertThat(report.leadership()).isSameAs(Leadership.NONE);
        assertThat(report.text()).doesNotContain("Leader");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aLargeHistoryIsCheckedWithoutComparingEveryPair() throws IOException {
        for (int i = 0; i < 300_000; i++) {
            grant(i % 8, "f:" + (i % 2), Kind.FENCED, "l" + i, i, i, i + 1, i + 2, i + 2);
        }
        grant(1, "f:1", Kind.FENCED, "overlapping", -1, 0, 150_000, 150_001, 150_001);
        grant(1, "f:0", Kind.FENCED, "out-of-order", 5, 200_000, 200_001, 200_001, 200_001);
        CheckReport report = check();
        assertThat(report.grantCount()).isEqualTo(300_002);
        assertThat(report.violations(Violation.Kind.OVERLAP)).isEqualTo(1);
        assertThat(report.violations(Violation.Kind.FENCING_ORDER)).isEqualTo(1);
    }

    private void grant(int client, String key, Kind kind, String lease, long token, long startMs, long grantMs, long validEndMs,
            long releaseMs) {
        this.history.add(new Operation(client, 0, key, kind, nanos(startMs), nanos(grantMs), Outcome.GRANTED, lease, token,
                nanos(validEndMs), nanos(releaseMs)).line());
    }

    private void lead(int client, LeadEvent event, long millis, String token, String detail) {
        this.history.add(new History.Lead(client, event, nanos(millis), token, detail).line());
    }

    private void refused(int client, String key, long startMs, long endMs) {
        this.history.add(new Operation(client, 0, key, Kind.EXCLUSIVE, nanos(startMs), nanos(endMs), Outcome.REFUSED, "-", -1, 0, 0).line());
    }

    private void write(String key, String lease, long token, boolean accepted) {
        this.storage.add(String.join("\t", Long.toString(this.storage.size() + 1), key, lease, Long.toString(token), accepted ? "1" : "0"));
    }

    private void fault(FaultKind kind, long startMs, long endMs) {
        this.faults.add(new History.Fault(kind, nanos(startMs), nanos(endMs), "node 2").line());
    }

    private CheckReport check() throws IOException {
        Properties run = new Properties();
        run.setProperty("seed", "42");
        run.setProperty("runStartNanos", Long.toString(START));
        run.setProperty("faultsEndNanos", Long.toString(nanos(this.faultsEndMillis)));
        run.setProperty("runEndNanos", Long.toString(nanos(this.runEndMillis)));
        run.setProperty("maxTtlMillis", "1000");
        if (this.clientMaxTtlMillis != null) {
            run.setProperty("clientMaxTtlMillis", this.clientMaxTtlMillis);
        }
        run.setProperty("waitMillis", "500");
        run.setProperty("fencing", "true");
        run.setProperty("quarantine", "AUTO");
        try (Writer writer = Files.newBufferedWriter(this.directory.resolve("run.properties"))) {
            run.store(writer, null);
        }
        Files.write(this.directory.resolve("history-1.tsv"), this.history);
        Files.write(this.directory.resolve("storage.tsv"), this.storage);
        Files.write(this.directory.resolve("faults.tsv"), this.faults);
        return HistoryChecker.check(this.directory);
    }

    private static long nanos(long millis) {
        return START + millis * 1_000_000;
    }

}
