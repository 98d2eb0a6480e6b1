package io.github.redlock.core.internal.guard;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests {@link NodeRecords}: reading the replies of {@code node-records.lua} (fields {@code run_id:maxTtl:quarantine},
 * or a bare {@code run_id} of an older client, each with its age), pruning each record by its own client's quarantine,
 * and picking the record of another server process and the one with the longest quarantine.
 */
class NodeRecordsTests {

    private static final long OWN_MAX_TTL = 60_000;

    private static final long OWN_QUARANTINE = 61_601;

    @Test
    void refreshIsAQuarterOfTheQuarantineAndAtLeastOneMillisecond() {
        assertThat(NodeRecords.refreshMillis(61_000)).isEqualTo(15_250);
        assertThat(NodeRecords.refreshMillis(4_003)).isEqualTo(1_000);
        assertThat(NodeRecords.refreshMillis(4)).isEqualTo(1);
        assertThat(NodeRecords.refreshMillis(3)).isEqualTo(1);
        assertThat(NodeRecords.refreshMillis(0)).isEqualTo(1);
    }

    @Test
    void aRecordMattersForTwoQuarantinesAndARefreshPeriod() {
        assertThat(NodeRecords.keepMillis(61_000)).isEqualTo(137_250);
        assertThat(NodeRecords.keepMillis(4_003)).isEqualTo(9_006);
    }

    @Test
    void keepingMatchesTheScriptForEveryQuarantineAClientCanHave() {
        // node-record.lua prunes after 2 * q + floor(q / 4); a quarantine is maxTtl + drift + 1 s, so at least 1 s.
        for (long quarantine : new long[] { 1_000, 1_001, 1_003, 4_002, 61_601, 86_400_000 }) {
            assertThat(NodeRecords.keepMillis(quarantine)).as("quarantine %d", quarantine)
                    .isEqualTo(2 * quarantine + Math.floorDiv(quarantine, 4));
        }
    }

    @Test
    void readsTheFieldsOfEveryNodeThatAnswered() {
        NodeRecords records = NodeRecords.parse(List.of(reply("run-a:20000:21201", "150", "run-b:60000:61601", "9"),
                reply("run-a:20000:21201", "160")), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).containsExactly(new NodeRecords.Entry("run-a", 20_000, 21_201, 150),
                new NodeRecords.Entry("run-b", 60_000, 61_601, 9), new NodeRecords.Entry("run-a", 20_000, 21_201, 160));
    }

    @Test
    void readsFieldsGivenAsStrings() {
        NodeRecords records = NodeRecords.parse(List.of(List.of("run-a:1000:2010", 5L)), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).containsExactly(new NodeRecords.Entry("run-a", 1_000, 2_010, 5));
    }

    @Test
    void aFieldOfAnOlderClientCountsWithTheReadersOwnMaxTtlAndQuarantine() {
        NodeRecords records = NodeRecords.parse(List.of(reply("5f8b1c0a3e2d4f6a8b9c0d1e2f3a4b5c6d7e8f90", "42")), OWN_MAX_TTL,
                OWN_QUARANTINE);
        assertThat(records.entries())
                .containsExactly(new NodeRecords.Entry("5f8b1c0a3e2d4f6a8b9c0d1e2f3a4b5c6d7e8f90", OWN_MAX_TTL, OWN_QUARANTINE, 42));
    }

    @Test
    void aFieldOfTwoPartsIsReadAsTheRunIdOfAnOlderClient() {
        NodeRecords records = NodeRecords.parse(List.of(reply("run-a:1000", "1")), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).containsExactly(new NodeRecords.Entry("run-a:1000", OWN_MAX_TTL, OWN_QUARANTINE, 1));
    }

    @Test
    void aRecordIsKeptUntilItsOwnClientsKeepTimeAndDroppedAfter() {
        long keep = NodeRecords.keepMillis(4_000); // 9_000
        NodeRecords records = NodeRecords.parse(List.of(reply("at-limit:3000:4000", Long.toString(keep), "past:3000:4000",
                Long.toString(keep + 1))), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).extracting(NodeRecords.Entry::runId).containsExactly("at-limit");
    }

    @Test
    void aLongQuarantineKeepsItsRecordLongerThanTheReadersOwnWould() {
        // The reader's quarantine is 2 s, but the writer's 200 s: its record still matters after 300 s.
        NodeRecords records = NodeRecords.parse(List.of(reply("long:199000:200000", "300000", "short:1000:2000", "5000")), 1_000,
                2_000);
        assertThat(records.entries()).extracting(NodeRecords.Entry::runId).containsExactly("long");
    }

    @Test
    void aFieldOfAnOlderClientIsPrunedByTheReadersQuarantine() {
        long keep = NodeRecords.keepMillis(OWN_QUARANTINE);
        NodeRecords records = NodeRecords.parse(List.of(reply("kept", Long.toString(keep), "dropped", Long.toString(keep + 1))),
                OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).extracting(NodeRecords.Entry::runId).containsExactly("kept");
    }

    @Test
    void repliesThatAreNotListsAndAnUnpairedLastFieldAreIgnored() {
        List<Object> replies = new ArrayList<>();
        replies.add("OK");
        replies.add(null);
        replies.add(reply("run-a:1000:2000", "3", "dangling"));
        replies.add(List.of());
        NodeRecords records = NodeRecords.parse(replies, OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).containsExactly(new NodeRecords.Entry("run-a", 1_000, 2_000, 3));
    }

    @Test
    void noRepliesMakeNoRecords() {
        NodeRecords records = NodeRecords.parse(List.of(), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.entries()).isEmpty();
        assertThat(records.longest()).isNull();
        assertThat(records.newestOtherProcess("run-a")).isNull();
    }

    @Test
    void theEntriesCannotBeChanged() {
        NodeRecords records = NodeRecords.parse(List.of(reply("run-a:1000:2000", "3")), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> records.entries().clear());
    }

    @Test
    void aGarbledFieldIsRefusedRatherThanMisread() {
        assertThatExceptionOfType(NumberFormatException.class).isThrownBy(
                () -> NodeRecords.parse(List.of(reply("run-a:soon:2000", "3")), OWN_MAX_TTL, OWN_QUARANTINE));
        assertThatExceptionOfType(NumberFormatException.class).isThrownBy(
                () -> NodeRecords.parse(List.of(reply("run-a:1000:2000", "yesterday")), OWN_MAX_TTL, OWN_QUARANTINE));
    }

    @Test
    void newestOtherProcessIsTheYoungestRecordOfAnotherRunId() {
        NodeRecords records = NodeRecords.parse(List.of(reply("now:1000:2000", "1", "earlier:1000:2000", "3"),
                reply("before:1000:2000", "2", "earlier:5000:6000", "4")), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.newestOtherProcess("now")).isEqualTo(new NodeRecords.Entry("before", 1_000, 2_000, 2));
        assertThat(records.newestOtherProcess("before")).isEqualTo(new NodeRecords.Entry("now", 1_000, 2_000, 1));
        assertThat(records.newestOtherProcess("newer")).isEqualTo(new NodeRecords.Entry("now", 1_000, 2_000, 1));
    }

    @Test
    void newestOtherProcessIsNullWhenEveryRecordIsOfTheSameRunId() {
        NodeRecords records = NodeRecords.parse(List.of(reply("now:1000:2000", "1"), reply("now:5000:6000", "2")), OWN_MAX_TTL,
                OWN_QUARANTINE);
        assertThat(records.newestOtherProcess("now")).isNull();
    }

    @Test
    void longestIsTheRecordWithTheLongestQuarantineAndTheFirstOfATie() {
        NodeRecords records = NodeRecords.parse(List.of(reply("a:1000:2000", "1", "b:90000:91000", "2"),
                reply("c:90000:91000", "3", "d:5000:6000", "4")), OWN_MAX_TTL, OWN_QUARANTINE);
        assertThat(records.longest()).isEqualTo(new NodeRecords.Entry("b", 90_000, 91_000, 2));
    }

    /** One node's reply to {@code node-records.lua}: bulk strings, as Lettuce's byte-array codec returns them. */
    private static List<Object> reply(String... fields) {
        return Arrays.stream(fields).map((field) -> (Object) field.getBytes(StandardCharsets.US_ASCII)).toList();
    }

}
