package io.github.redlock.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.benchmarks.FencedTransactionComparison.Figures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fenced transaction comparison's report ({@code run.sh --fenced-transactions}): the interleaved forks' iterations
 * pooled, with the fence's cost taken iteration by iteration, and each fork's ratio; the separate forks with their
 * ratios to {@code unfenced}, and the database's floor.
 */
class FencedTransactionComparisonTests {

    private static final List<Map<String, Figures>> INTERLEAVED = List.of(
            interleaved(new Figures(new double[] { 110, 110 }, 10), new Figures(new double[] { 100, 100 }, 10)),
            interleaved(new Figures(new double[] { 105, 105 }, 12), new Figures(new double[] { 100, 100 }, 12)));

    private static final Map<String, Figures> SEPARATE = separate();

    @Test
    void theInterleavedForksArePooledAndTheCostIsTakenIterationByIteration() {
        String report = FencedTransactionComparison.report(INTERLEAVED, SEPARATE, List.of("fenced", "transactionOnly", "unfenced"));
        assertThat(report).contains("in 2 fork(s)", "over the 4 measurement iterations",
                "| fenced          |      22 |     107.5 |",
                "|      1.075 |        +7.5 ± ",
                "| unfenced        |      22 |     100.0 |      0.0 |      1.000 |                    |",
                "fenced / unfenced by fork: 1.100 (+10.0 µs), 1.050 (+5.0 µs)");
    }

    @Test
    void theSeparateForksGiveTheirRatiosToUnfencedAndTheDatabasesFloor() {
        String report = FencedTransactionComparison.report(INTERLEAVED, SEPARATE, List.of("fenced", "transactionOnly", "unfenced"));
        assertThat(report).contains("Separate forks, one per variant, in this order: fenced, transactionOnly, unfenced",
                "| fenced          |         |     150.0 |      0.0 |      1.500 |              +50.0 |",
                "| transactionOnly |         |      50.0 |      0.0 |      0.500 |              -50.0 |",
                "fenced / unfenced: 1.075 interleaved (fenced +7.5 ± ", "1.500 in separate forks (+50.0 µs); "
                        + "transactionOnly, the database alone: 50.0 ± 0.0 µs a call");
    }

    @Test
    void theDifferenceOfTwoVariantsIsTakenIterationByIteration() {
        Figures difference = FencedTransactionComparison.difference(new Figures(new double[] { 110, 130, 120 }, 3),
                new Figures(new double[] { 100, 120, 110 }, 3));
        assertThat(difference.iterationMeans()).containsExactly(10, 10, 10);
        assertThat(difference.mean()).isEqualTo(10);
        assertThat(difference.error()).as("iterations whose load moved both alike").isZero();
    }

    private static Map<String, Figures> interleaved(Figures fenced, Figures unfenced) {
        Map<String, Figures> fork = new LinkedHashMap<>();
        fork.put("fenced", fenced);
        fork.put("unfenced", unfenced);
        return fork;
    }

    private static Map<String, Figures> separate() {
        Map<String, Figures> separate = new LinkedHashMap<>();
        separate.put("fenced", new Figures(new double[] { 150, 150, 150, 150, 150 }, 0));
        separate.put("transactionOnly", new Figures(new double[] { 50, 50, 50, 50, 50 }, 0));
        separate.put("unfenced", new Figures(new double[] { 100, 100, 100, 100, 100 }, 0));
        return separate;
    }

}
