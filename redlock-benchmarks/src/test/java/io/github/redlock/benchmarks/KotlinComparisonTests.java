package io.github.redlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kotlin comparison's plan and summary ({@code run.sh --kotlin}): the two contenders that issue 23 compares take
 * turns at going first, and the summary gives each round's ratio and their median, which one odd round does not move.
 */
class KotlinComparisonTests {

    @Test
    void theFirstRoundRunsEveryContenderAndTheLaterOnesAlternateTheComparedPair() {
        assertThat(RunBenchmarks.kotlinContenders(1)).containsExactly("floor", "annotated", "annotatedKotlin", "kotlinCoroutine");
        assertThat(RunBenchmarks.kotlinContenders(2)).containsExactly("annotatedKotlin", "annotated");
        assertThat(RunBenchmarks.kotlinContenders(3)).containsExactly("annotated", "annotatedKotlin");
        assertThat(RunBenchmarks.kotlinContenders(6)).containsExactly("annotatedKotlin", "annotated");
    }

    @Test
    void theSummaryGivesEachRoundsRatiosAndTheirMedians() {
        String line = RunBenchmarks.kotlinRatioLine(List.of(new double[] { 1.07, 1.05 }, new double[] { 1.30, 1.25 },
                new double[] { 1.00, 0.98 }, new double[] { 1.09, 1.08 }, new double[] { 1.08, 1.04 }));
        assertThat(line).contains("by round (p50; ops): 1.07; 1.05 | 1.30; 1.25 | 1.00; 0.98 | 1.09; 1.08 | 1.08; 1.04")
                .contains("median of 5 round(s): p50 1.08, ops 1.05 (limit of issue 23: 1.10)");
    }

    @Test
    void aRunWithoutBothContendersSaysSo() {
        assertThat(RunBenchmarks.kotlinRatioLine(List.of())).startsWith("annotatedKotlin over annotated: no round measured both");
    }

}
