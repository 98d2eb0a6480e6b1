package io.github.redlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster comparison's report: each round's ratios are cluster over standalone, with the share of refused attempts
 * of each side; the summary takes the medians of the rounds, and says whether the p50 ratio is within issue 25's limit.
 */
class ClusterComparisonTests {

    private static final ClusterComparison.Round SLOWER = new ClusterComparison.Round("standalone then cluster", "1.5 to 2.0",
            new ClusterComparison.Side(300, 900, 10_000, 0), new ClusterComparison.Side(330, 1000, 9_000, 0.012));

    private static final ClusterComparison.Round MUCH_SLOWER = new ClusterComparison.Round("cluster then standalone", "2.0 to 3.1",
            new ClusterComparison.Side(300, 900, 10_000, 0.001), new ClusterComparison.Side(360, 1000, 8_000, 0.05));

    private static final ClusterComparison.Round SAME = new ClusterComparison.Round("standalone then cluster", "3.1 to 2.2",
            new ClusterComparison.Side(320, 900, 12_000, 0), new ClusterComparison.Side(320, 1000, 12_000, 0));

    @Test
    void eachRoundShowsBothSidesAndTheRatiosClusterOverStandalone() {
        String table = ClusterComparison.table(List.of(SLOWER, MUCH_SLOWER));
        assertThat(table).contains("| standalone then cluster  | 1.5 to 2.0      |    300.0 µs |    330.0 µs |      1.10 |",
                "|        10000 |         9000 |      0.90 | 0.0, 1.2 |", "|      1.20 |", "|      0.80 | 0.1, 5.0 |");
    }

    @Test
    void theSummaryTakesTheMediansOfTheRoundsAndSaysWhetherTheLimitIsMet() {
        assertThat(ClusterComparison.medians(List.of(SLOWER, MUCH_SLOWER, SAME))).contains("Medians of 3 round(s)",
                "p50 300.0 µs standalone, 330.0 µs cluster, ratio 1.10 (limit 1.15: met)", "64 threads 10000 held/s standalone, 9000 held/s cluster, ratio 0.90");
        assertThat(ClusterComparison.medians(List.of(MUCH_SLOWER))).contains("ratio 1.20 (limit 1.15: not met)");
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(ClusterComparison.median(new double[] { 4, 1, 3, 2 })).isEqualTo(2.5);
        assertThat(ClusterComparison.median(new double[] { 5, 1, 3 })).isEqualTo(3);
    }

}
