package io.github.redlock.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster comparison's report: a row per side and round, with its ratios to the round's first side and the share
 * of refused attempts; the summary takes each side's medians of the rounds, and says whether the cluster's p50 ratio
 * is within issue 25's limit.
 */
class ClusterComparisonTests {

    private static final ClusterComparison.Round SLOWER = round("1.5 to 2.0", new ClusterComparison.Side(300, 900, 10_000, 0),
            new ClusterComparison.Side(330, 1000, 9_000, 0.012));

    private static final ClusterComparison.Round MUCH_SLOWER = round("2.0 to 3.1", new ClusterComparison.Side(300, 900, 10_000, 0.001),
            new ClusterComparison.Side(360, 1000, 8_000, 0.05));

    private static final ClusterComparison.Round SAME = round("3.1 to 2.2", new ClusterComparison.Side(320, 900, 12_000, 0),
            new ClusterComparison.Side(320, 1000, 12_000, 0));

    @Test
    void eachRoundShowsEverySideWithItsRatiosToTheFirst() {
        String table = ClusterComparison.table(List.of(SLOWER, MUCH_SLOWER), 1);
        assertThat(table).contains(
                "|     1 | standalone                     | 1.5 to 2.0      |    300.0 µs |    900.0 µs |      1.00 |    10000 |      1.00 |     0.0 % |",
                "|     1 | cluster                        | 1.5 to 2.0      |    330.0 µs |   1000.0 µs |      1.10 |     9000 |      0.90 |     1.2 % |",
                "|     2 | cluster                        | 2.0 to 3.1      |    360.0 µs |   1000.0 µs |      1.20 |     8000 |      0.80 |     5.0 % |");
    }

    @Test
    void aRoundPrintedAloneKeepsItsNumber() {
        assertThat(ClusterComparison.table(List.of(SAME), 3)).contains("|     3 | standalone ", "|     3 | cluster ");
    }

    @Test
    void theSummaryTakesTheMediansOfTheRoundsAndSaysWhetherTheLimitIsMet() {
        assertThat(ClusterComparison.medians(List.of(SLOWER, MUCH_SLOWER, SAME))).contains("Medians of 3 round(s)",
                "- standalone: p50 300.0 µs (ratio 1.00), 64 threads 10000 held/s (ratio 1.00)",
                "- cluster: p50 330.0 µs (ratio 1.10), 64 threads 9000 held/s (ratio 0.90)",
                "p50 cluster / standalone at most 1.15: 1.10, met");
        assertThat(ClusterComparison.medians(List.of(MUCH_SLOWER))).contains("at most 1.15: 1.20, not met");
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(ClusterComparison.median(new double[] { 4, 1, 3, 2 })).isEqualTo(2.5);
        assertThat(ClusterComparison.median(new double[] { 5, 1, 3 })).isEqualTo(3);
    }

    private static ClusterComparison.Round round(String load, ClusterComparison.Side standalone, ClusterComparison.Side cluster) {
        Map<String, ClusterComparison.Side> sides = new LinkedHashMap<>();
        sides.put("standalone", standalone);
        sides.put("cluster", cluster);
        return new ClusterComparison.Round("standalone then cluster", load, sides);
    }

}
