package io.github.redlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.options.TimeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The interleaved comparison ({@code run.sh --interleaved}): each invocation times both paths, each call on its own,
 * the second first in every other one, only the measurement iterations count, every thread of a fork leaves its file,
 * and the summary gives each fork after its control, the median of the forks' ratios, and the ratio across forks.
 */
class InterleavedCallsTests {

    @Test
    void thePathsTakeTurnsAtGoingFirstEachTimedOnItsOwnAndOnlyMeasuredCallsAreRecorded() {
        long[] now = { 0 };
        InterleavedCalls calls = new InterleavedCalls(() -> now[0]);
        calls.second = "annotatedKotlin";
        List<String> order = new ArrayList<>();
        Runnable java = () -> {
            order.add("java");
            now[0] += 100_000;
        };
        Runnable kotlin = () -> {
            order.add("kotlin");
            now[0] += 300_000;
        };
        calls.iteration(iteration(IterationType.WARMUP));
        calls.run(java, kotlin);
        calls.iteration(iteration(IterationType.MEASUREMENT));
        calls.run(java, kotlin);
        calls.run(java, kotlin);
        assertThat(order).containsExactly("java", "kotlin", "kotlin", "java", "java", "kotlin");
        InterleavedCalls.Result result = calls.result();
        assertThat(result.calls()).isEqualTo(2);
        assertThat(result.javaP50()).isEqualTo(100.0);
        assertThat(result.secondP50()).isEqualTo(300.0);
    }

    @Test
    void inBlocksEachInvocationCallsThePathWhoseBlockItIs() {
        long[] now = { 0 };
        InterleavedCalls calls = new InterleavedCalls(() -> now[0]);
        calls.second = "annotatedKotlin";
        calls.block = 2;
        calls.check();
        List<String> order = new ArrayList<>();
        calls.iteration(iteration(IterationType.MEASUREMENT));
        for (int i = 0; i < 5; i++) {
            calls.run(() -> {
                order.add("java");
                now[0] += 100_000;
            }, () -> {
                order.add("kotlin");
                now[0] += 300_000;
            });
        }
        assertThat(order).containsExactly("java", "java", "kotlin", "kotlin", "java");
        InterleavedCalls.Result result = calls.result();
        assertThat(result.calls()).isEqualTo(2);
        assertThat(result.javaP50()).isEqualTo(100.0);
        assertThat(result.secondP50()).isEqualTo(300.0);
        calls.block = -1;
        assertThatIllegalArgumentException().isThrownBy(calls::check).withMessageContaining("block must be 0");
    }

    @Test
    void aResultGivesEachPathsMedianAndMeanInMicroseconds() {
        InterleavedCalls.Result result = InterleavedCalls.Result.of("annotatedKotlin", new long[] { 300_000, 100_000, 200_000 },
                new long[] { 210_000, 900_000, 220_000 });
        assertThat(result.javaP50()).isEqualTo(200.0);
        assertThat(result.secondP50()).isEqualTo(220.0);
        assertThat(result.javaMean()).isEqualTo(200.0);
        assertThat(result.secondMean()).isCloseTo(443.333, org.assertj.core.data.Offset.offset(0.001));
        assertThat(result.p50Ratio()).isCloseTo(1.1, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aResultReadsBackAsItWasWritten() {
        InterleavedCalls.Result result = new InterleavedCalls.Result("annotated", 11785, 395.9, 396.125, 410.5, 409.0);
        assertThat(InterleavedCalls.Result.parse(result.format())).isEqualTo(result);
        assertThatIllegalArgumentException().isThrownBy(() -> InterleavedCalls.Result.parse("interleaved second=annotated calls=1"))
                .withMessageContaining("Not a line of interleaved calls");
        assertThatIllegalArgumentException().isThrownBy(() -> InterleavedCalls.Result.of("annotated", new long[0], new long[0]))
                .withMessageContaining("No calls of a path: 0 of the Java one, 0 of the second");
    }

    @Test
    void anUnknownSecondPathIsRefusedBeforeTheTrial() {
        InterleavedCalls calls = new InterleavedCalls();
        calls.second = "redlock";
        assertThatIllegalArgumentException().isThrownBy(calls::check).withMessageContaining("was redlock");
    }

    @Test
    void theSummaryGivesEachForkAfterItsControlTheMedianOfTheirRatiosAndTheRatioAcrossForks() {
        // Medians of the ratios (1.04), not the ratio of the medians (460 / 400 = 1.15).
        String table = RunBenchmarks.interleavedTable(
                List.of(new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 416.0, 400.0, 412.0),
                        new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 460.0, 400.0, 440.0),
                        new InterleavedCalls.Result("annotatedKotlin", 100, 500.0, 505.0, 500.0, 510.0)),
                List.of(new InterleavedCalls.Result("annotated", 100, 390.0, 391.0, 400.0, 398.4),
                        new InterleavedCalls.Result("annotated", 100, 400.0, 404.0, 400.0, 400.0),
                        new InterleavedCalls.Result("annotated", 100, 505.0, 500.0, 500.0, 500.0)), 1);
        assertThat(table).contains("""
                | control 1: Java, Java      |     100 |       390.0 |         391.0 |           1.003 |            0.996 |
                | fork 1                     |     100 |       400.0 |         416.0 |           1.040 |            1.030 |
                | control 2: Java, Java      |""")
                .contains("median of 3 interleaved fork(s): Kotlin/Java p50 1.04, mean 1.03 (limit of issue 23: 1.10); "
                        + "of the controls (the harness's own bias, 1.00 when it favours neither place): p50 1.00")
                .contains("over the Java p50 of the control before it: 1.067, 1.150, 1.000 (median 1.07)");
    }

    @Test
    void aForkWithThreadsNamesEachAndEveryForkNeedsItsControl() {
        InterleavedCalls.Result one = new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 416.0, 400.0, 412.0);
        assertThat(RunBenchmarks.interleavedTable(List.of(one, one), List.of(one, one), 2)).contains("| fork 1, thread 2 ");
        assertThatIllegalArgumentException().isThrownBy(() -> RunBenchmarks.interleavedTable(List.of(one, one), List.of(one), 1))
                .withMessageContaining("2 fork result(s), 1 control(s)");
    }

    @Test
    void aForkIsReadFromItsThreadsFilesAndAMissingOneFailsTheRun(@TempDir Path directory) throws IOException {
        InterleavedCalls.Result first = new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 416.0, 400.0, 412.0);
        InterleavedCalls.Result second = new InterleavedCalls.Result("annotatedKotlin", 90, 410.0, 420.0, 411.0, 421.0);
        Files.writeString(directory.resolve("interleaved-7-1.txt"), first.format());
        Files.writeString(directory.resolve("interleaved-7-2.txt"), second.format());
        assertThat(RunBenchmarks.readInterleaved(directory, 2)).containsExactly(first, second);
        assertThatIllegalStateException().isThrownBy(() -> RunBenchmarks.readInterleaved(directory, 3))
                .withMessageContaining("left 2 result file(s)").withMessageContaining("one per thread was expected (3)");
    }

    private static IterationParams iteration(IterationType type) {
        return new IterationParams(type, 1, TimeValue.seconds(2), 1);
    }

}
