package io.github.redlock.core.internal.guard;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.guard.QuarantinePolicy.Verdict;
import io.github.redlock.core.internal.node.ServerInfo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link QuarantinePolicy}: each rule of the restart check on its own, with the inputs a check gathers (what the
 * node says of itself, the run_id this client saw, the other nodes' records and the marker of kept data).
 */
class QuarantinePolicyTests {

    private static final long MAX_TTL = 60_000;

    /** This client's quarantine: max-ttl, drift and a second. */
    private static final long QUARANTINE = 61_601;

    private static final NodeRecords NONE = new NodeRecords(List.of());

    /** The server that answers the checks. */
    private static final String SERVER = "127.0.0.1:7001";

    @Test
    void aNodeNoClientRecordedVotesAtOnce() {
        assertThat(auto(server("fresh", 0), null, NONE, null)).isEqualTo(Verdict.VOTE);
        assertThat(auto(server("fresh", 0), null, records(entry("fresh", 10)), null)).as("a record of itself only").isEqualTo(Verdict.VOTE);
    }

    @Test
    void aNodeWithARecordOfAnotherProcessWaitsForTheRestOfTheQuarantineFromItsStart() {
        Verdict verdict = auto(server("now", 20), null, records(entry("before", 1_500)), null);
        assertThat(verdict.decided()).isTrue();
        assertThat(verdict.quarantine()).contains("restarted 20 s ago (while in use: run_id before was seen on it 1500 ms ago)")
                .contains("this client's max-ttl of 60 s");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(QUARANTINE - 20_000));
    }

    @Test
    void aNodeWhoseRunIdChangedUnderThisClientWaitsWithoutAnyRecord() {
        Verdict verdict = auto(server("now", 2), "before", NONE, null);
        assertThat(verdict.quarantine()).contains("its run_id changed while this client was connected");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(QUARANTINE - 2_000));
    }

    @Test
    void aNodeUpForLongerThanTheQuarantineVotesAlthoughItRestarted() {
        assertThat(auto(server("now", 62), "before", records(entry("before", 1)), null)).isEqualTo(Verdict.VOTE);
    }

    @Test
    void theLongestQuarantineRecordedByAnyClientOfTheFleetIsWaitedFor() {
        NodeRecords records = records(entry("before", 100_000, 101_601, 5), entry("now", 5_000, 6_001, 1));
        Verdict verdict = auto(server("now", 30), null, records, null);
        assertThat(verdict.quarantine()).contains("a max-ttl of 100 s (this client's is 60 s)");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(101_601 - 30_000));
        assertThat(auto(server("now", 70), null, records, null).decided()).isTrue();
        assertThat(auto(server("now", 70), null, records, null).quarantine()).as("past this client's, within the fleet's").isNotNull();
    }

    @Test
    void aPromotedReplicaWaitsAWholeQuarantineFromNowHoweverLongItRan() {
        Verdict verdict = auto(promoted("replica", 3_600), null, records(entry("master", 1)), null);
        assertThat(verdict.quarantine()).contains("promoted from a replica by a failover").contains("may lack writes of its former master");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(QUARANTINE));
    }

    @Test
    void alwaysQuarantinesEveryNodeUpForLessThanTheQuarantineFirstStartIncluded() {
        Verdict verdict = QuarantinePolicy.judge(RestartQuarantine.ALWAYS, MAX_TTL, QUARANTINE, server("fresh", 10), null, NONE, null, SERVER);
        assertThat(verdict.quarantine()).contains("up for only 10 s (restart-quarantine ALWAYS)");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(QUARANTINE - 10_000));
        assertThat(QuarantinePolicy.judge(RestartQuarantine.ALWAYS, MAX_TTL, QUARANTINE, server("old", 62), null, NONE, null, SERVER))
                .isEqualTo(Verdict.VOTE);
    }

    @Test
    void aDurableNodeWhoseMarkerNamesTheProcessBeforeItVotesAtOnce() {
        Verdict verdict = auto(durable("now", 1), null, records(entry("before", 400)), "before");
        assertThat(verdict.quarantine()).isNull();
        assertThat(verdict.note()).contains("came back with the data it had acknowledged as run_id before");
    }

    @Test
    void aDurableNodeRestartedAgainAndAgainVotesAtOnceEachTimeItsMarkerNamesTheLastProcess() {
        // earlier -> before (it voted, and a client rewrote the marker) -> now
        NodeRecords records = records(entry("earlier", 50_000), entry("before", 800));
        assertThat(auto(durable("now", 1), null, records, "before").quarantine()).isNull();
        assertThat(auto(durable("now", 1), null, records, "earlier").quarantine())
                .as("a marker of an older process: the one before may have voted without complete data").contains("names earlier@" + SERVER);
    }

    @Test
    void aDurableNodeThatThisClientSawBeforeItsRecordsWereWrittenIsJudgedByWhatThisClientSaw() {
        assertThat(auto(durable("now", 1), "before", NONE, "before").quarantine()).isNull();
        assertThat(auto(durable("now", 1), "before", NONE, "earlier").quarantine()).isNotNull();
    }

    @Test
    void aDurableNodeWhoseMarkerWasSetUnderTheProcessAnsweringNowVotes() {
        // Another client already checked this process, found the marker of the one before, let it vote and rewrote it.
        Verdict verdict = auto(durable("now", 3), null, records(entry("before", 3_000)), "now");
        assertThat(verdict.quarantine()).isNull();
        assertThat(verdict.note()).contains("another client already found its data complete");
    }

    @Test
    void aDurableNodeWithoutItsMarkerWaits() {
        assertThat(auto(durable("now", 1), null, records(entry("before", 5)), null).quarantine())
                .contains("came back without the marker written before its restart");
    }

    @Test
    void aMarkerProvesNothingOnANodeThatIsNotDurable() {
        assertThat(auto(server("now", 1), null, records(entry("before", 5)), "before").quarantine()).contains("restarted 1 s ago");
    }

    @Test
    void aPromotedReplicaWithItsFormerMastersMarkerWaits() {
        assertThat(auto(durablePromoted("replica", 600), null, records(entry("master", 5)), "master").quarantine())
                .contains("promoted from a replica");
    }

    /**
     * The promoted replica that restarts during its quarantine from its own log: it no longer says it was promoted, and
     * holds the marker it received from its former master by replication. The records name the replica's own process,
     * seen after the failover, as the newest: the marker of the master before it proves nothing.
     */
    @Test
    void aPromotedReplicaThatRestartsFromItsOwnLogDuringItsQuarantineStaysQuarantined() {
        NodeRecords records = records(entry("master", 4_000), entry("replica", 900));
        Verdict verdict = auto(durable("replica-again", 1), null, records, "master");
        assertThat(verdict.quarantine()).contains("while in use: run_id replica was seen on it 900 ms ago")
                .contains("its marker names master@" + SERVER + ", not the process that ran before it on this server (replica@" + SERVER + ")");
        assertThat(verdict.waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(QUARANTINE - 1_000));
        // And again, as often as it restarts within the records' lifetime.
        NodeRecords again = records(entry("master", 9_000), entry("replica", 5_000), entry("replica-again", 700));
        assertThat(auto(durable("replica-third", 1), null, again, "master").quarantine()).isNotNull();
    }

    @Test
    void aCheckReadsMoreNodesThanARecordNeedsSoThatTheTwoSetsAlwaysMeet() {
        for (int nodes = 2; nodes <= 9; nodes++) {
            int others = nodes - 1;
            assertThat(QuarantinePolicy.recordsToConfirm(nodes) + QuarantinePolicy.readersNeeded(nodes)).as("%d nodes", nodes)
                    .isGreaterThan(others);
            int quorum = nodes / 2 + 1;
            assertThat(QuarantinePolicy.recordsToConfirm(nodes)).as("a quorum holds them besides the node: admitted with a minority down")
                    .isLessThanOrEqualTo(quorum - 1);
            assertThat(QuarantinePolicy.readersNeeded(nodes)).isLessThanOrEqualTo(others);
        }
        assertThat(QuarantinePolicy.recordsToConfirm(5)).isEqualTo(2);
        assertThat(QuarantinePolicy.readersNeeded(5)).isEqualTo(3);
        assertThat(QuarantinePolicy.readersNeeded(3)).isEqualTo(2);
        assertThat(QuarantinePolicy.readersNeeded(1)).as("a single node has no other").isZero();
    }

    /** The reproduced hole: two readers of five, neither of which holds the record, let a restarted node vote. */
    @Test
    void withTooFewTrustedReadersAutoDecidesNothingAndTheNodeDoesNotVote() {
        Verdict verdict = QuarantinePolicy.check(RestartQuarantine.AUTO, MAX_TTL, QUARANTINE, server("now", 3), null, NONE, null, SERVER, 2, 3);
        assertThat(verdict.decided()).isFalse();
        assertThat(verdict.quarantine()).contains("could be read from only 2 other node(s) that did not themselves restart while in use, "
                + "of the 3 the check needs");
        assertThat(QuarantinePolicy.check(RestartQuarantine.AUTO, MAX_TTL, QUARANTINE, server("old", 3_600), null, NONE, null, SERVER, 0, 3)
                .decided()).as("however long it ran: the longest max-ttl of the fleet is unknown").isFalse();
        assertThat(QuarantinePolicy.check(RestartQuarantine.AUTO, MAX_TTL, QUARANTINE, server("now", 3), null, NONE, null, SERVER, 3, 3))
                .as("with enough readers, a node no client recorded votes at once").isEqualTo(Verdict.VOTE);
    }

    @Test
    void alwaysNeedsNoReaderItGoesByUptime() {
        assertThat(QuarantinePolicy.check(RestartQuarantine.ALWAYS, MAX_TTL, QUARANTINE, server("old", 62), null, NONE, null, SERVER, 0, 3))
                .isEqualTo(Verdict.VOTE);
        assertThat(QuarantinePolicy.check(RestartQuarantine.ALWAYS, MAX_TTL, QUARANTINE, server("young", 2), null, NONE, null, SERVER, 0, 3)
                .quarantine()).contains("restart-quarantine ALWAYS");
    }

    @Test
    void aReaderCountsOnlyWhileNothingShowsThatItRestartedWithinItsQuarantine() {
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, server("r", 1), null, NONE)).as("never recorded").isTrue();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, null, null, NONE)).as("no answer").isFalse();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, new ServerInfo("r", 900, false, false, false), null, NONE))
                .as("a replica").isFalse();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, server("r", 5), null, records(entry("r-before", 10))))
                .as("restarted while in use 5 s ago: it may have lost records").isFalse();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, server("r", 5), "r-before", NONE))
                .as("restarted under this client").isFalse();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, server("r", 70), null, records(entry("r-before", 10))))
                .as("its quarantine is over: every live client wrote its records there again").isTrue();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, durable("r", 5), null, records(entry("r-before", 10))))
                .as("durable, but its marker is not read for a reader").isFalse();
        assertThat(QuarantinePolicy.trustedReader(MAX_TTL, QUARANTINE, promoted("r", 900), null, records(entry("master", 10))))
                .as("a promoted replica").isFalse();
    }

    /** The quick failover: a promoted replica restarts from its log before any client recorded it; the records name its former master. */
    @Test
    void aMarkerOfAnotherServerProvesNothingEvenWhenItNamesTheLastProcessRecorded() {
        String former = QuarantinePolicy.markerOf("master", "127.0.0.1:7002");
        Verdict verdict = QuarantinePolicy.judge(RestartQuarantine.AUTO, MAX_TTL, QUARANTINE, durable("replica-again", 1), null,
                records(entry("master", 700)), former, SERVER);
        assertThat(verdict.quarantine()).contains("its marker names master@127.0.0.1:7002, not the process that ran before it on this "
                + "server (master@127.0.0.1:7001)");
    }

    private static Verdict auto(ServerInfo info, String previous, NodeRecords records, String markerRunId) {
        return QuarantinePolicy.judge(RestartQuarantine.AUTO, MAX_TTL, QUARANTINE, info, previous, records, marker(markerRunId), SERVER);
    }

    /** The marker a process of the node's server wrote, or null. */
    private static String marker(String runId) {
        return (runId != null) ? QuarantinePolicy.markerOf(runId, SERVER) : null;
    }

    @Test
    void aSentinelOrClusterServersWaitCountsFromTheConfirmationAndTheBoundIsAddedToIt() {
        long bound = TimeUnit.SECONDS.toNanos(2);
        Verdict waits = Verdict.waitFor("promoted", TimeUnit.SECONDS.toNanos(10));
        Verdict promoted = QuarantinePolicy.fromConfirmation(waits, promoted("p", 300), bound);
        assertThat(promoted.waitNanos()).as("a promoted server: from now, and the bound").isEqualTo(TimeUnit.SECONDS.toNanos(12));
        assertThat(promoted.quarantine()).startsWith("promoted; a Sentinel group's or cluster's server waits from the moment").contains("2000 ms longer");
        // A wait counted from a start 4 s ago had 6 s left: counted from now, the 4 s come back.
        Verdict restarted = QuarantinePolicy.fromConfirmation(Verdict.waitFor("restarted", TimeUnit.SECONDS.toNanos(6)), server("r", 4), bound);
        assertThat(restarted.waitNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(12));
        assertThat(QuarantinePolicy.fromConfirmation(Verdict.VOTE, server("r", 4), bound)).as("a vote stays a vote").isSameAs(Verdict.VOTE);
        Verdict undecided = Verdict.undecided("too few readers");
        assertThat(QuarantinePolicy.fromConfirmation(undecided, server("r", 4), bound)).as("undecided stays undecided").isSameAs(undecided);
    }

    private static ServerInfo server(String runId, long uptimeSeconds) {
        return new ServerInfo(runId, uptimeSeconds, true, false, false);
    }

    private static ServerInfo durable(String runId, long uptimeSeconds) {
        return new ServerInfo(runId, uptimeSeconds, true, true, false);
    }

    private static ServerInfo promoted(String runId, long uptimeSeconds) {
        return new ServerInfo(runId, uptimeSeconds, true, false, true);
    }

    private static ServerInfo durablePromoted(String runId, long uptimeSeconds) {
        return new ServerInfo(runId, uptimeSeconds, true, true, true);
    }

    private static NodeRecords records(NodeRecords.Entry... entries) {
        return new NodeRecords(List.of(entries));
    }

    private static NodeRecords.Entry entry(String runId, long ageMillis) {
        return new NodeRecords.Entry(runId, MAX_TTL, QUARANTINE, ageMillis);
    }

    private static NodeRecords.Entry entry(String runId, long maxTtlMillis, long quarantineMillis, long ageMillis) {
        return new NodeRecords.Entry(runId, maxTtlMillis, quarantineMillis, ageMillis);
    }

}
