package io.github.redlock.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.options.TimeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The interleaved comparison ({@code run.sh --interleaved}): each invocation times both paths, the second first in
 * every other one, only the measurement iterations count, and the summary gives each fork's ratio, their median and
 * the control's.
 */
class InterleavedCallsTests {

    @Test
    void thePathsTakeTurnsAtGoingFirstAndOnlyMeasuredCallsAreRecorded() {
        InterleavedCalls calls = new InterleavedCalls();
        calls.second = "annotatedKotlin";
        List<String> order = new ArrayList<>();
        calls.iteration(iteration(IterationType.WARMUP));
        calls.run(() -> order.add("java"), () -> order.add("kotlin"));
        calls.iteration(iteration(IterationType.MEASUREMENT));
        calls.run(() -> order.add("java"), () -> order.add("kotlin"));
        calls.run(() -> order.add("java"), () -> order.add("kotlin"));
        assertThat(order).containsExactly("java", "kotlin", "kotlin", "java", "java", "kotlin");
        assertThat(calls.result().calls()).isEqualTo(2);
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
                .withMessageContaining("was a measurement iteration run?");
    }

    @Test
    void anUnknownSecondPathIsRefusedBeforeTheTrial() {
        InterleavedCalls calls = new InterleavedCalls();
        calls.second = "redlock";
        assertThatIllegalArgumentException().isThrownBy(calls::check).withMessageContaining("was redlock");
    }

    @Test
    void theSummaryGivesEachForkTheirMedianAndTheControl() {
        String table = RunBenchmarks.interleavedTable(
                List.of(new InterleavedCalls.Result("annotatedKotlin", 100, 394.8, 411.4, 400.0, 412.8),
                        new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 460.0, 400.0, 440.0),
                        new InterleavedCalls.Result("annotatedKotlin", 100, 400.0, 416.0, 400.0, 420.0)),
                List.of(new InterleavedCalls.Result("annotated", 100, 395.9, 396.1, 400.0, 398.4)));
        assertThat(table).contains("| fork 1                 |     100 |       394.8 |         411.4 |           1.042 |            1.032 |")
                .contains("| control: Java and Java |     100 |       395.9 |         396.1 |           1.001 |            0.996 |")
                .contains("median of 3 interleaved fork(s): Kotlin/Java p50 1.04, mean 1.05");
    }

    private static IterationParams iteration(IterationType type) {
        return new IterationParams(type, 1, TimeValue.seconds(2), 1);
    }

}
