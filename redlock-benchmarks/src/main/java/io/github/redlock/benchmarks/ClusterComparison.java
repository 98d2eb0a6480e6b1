package io.github.redlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Issue 25: lock + unlock on cluster nodes against standalone nodes ({@link ClusterNodesBenchmark}), in one run: the
 * uncontended p50 at 1 thread (JMH's {@code SampleTime}) and the throughput at {@value #THREADS} threads (locks held
 * and released per second, with the share of attempts refused), each side one fork of 3 × 2 s warm-up and 5 × 2 s
 * measured per figure. The sides are {@code standalone} and {@code cluster} unless told; more of the benchmark's
 * variants may be given (e.g. {@code cluster-one-master-no-publish}), to take the cluster side's cost apart. The first
 * side is the reference of the ratios.
 * <p>
 * The run is made of rounds; in each, the sides of a figure run one after the other, in the given order in odd rounds
 * and in the reverse order in even ones, so that a change of the machine's load falls on every side alike. It prints
 * each round's figures and their ratios to the reference's, then the medians of the rounds; with a directory, it
 * writes them to {@code cluster.md} there.
 */
final class ClusterComparison {

    /** The threads of the throughput figure, each with its own keys. */
    static final int THREADS = 64;

    /** The ratio of the p50s (cluster over standalone) that issue 25 sets as the limit. */
    static final double P50_LIMIT = 1.15;

    /** The sides compared unless told. */
    static final List<String> DEFAULT_SIDES = List.of("standalone", "cluster");

    private ClusterComparison() {
    }

    /** One side's figures in one round: p50 and p99 at 1 thread, in µs; locks held per second and the refused share at {@value #THREADS} threads. */
    record Side(double p50, double p99, double heldPerSecond, double refusedShare) {
    }

    /** One round: the order in which the sides ran, the machine's load average before and after, and each side's figures, reference first. */
    record Round(String order, String load, Map<String, Side> sides) {

        Side reference() {
            return this.sides.values().iterator().next();
        }

        double p50Ratio(String side) {
            return this.sides.get(side).p50() / reference().p50();
        }

        double heldRatio(String side) {
            return this.sides.get(side).heldPerSecond() / reference().heldPerSecond();
        }

    }

    /**
     * Runs the rounds, prints them and their medians, and writes them to {@code cluster.md} in {@code directory}.
     * @param rounds how many rounds, at least 1
     * @param directory where to write {@code cluster.md}, or null
     * @param sides the values of the benchmark's {@code nodes} parameter to compare, the reference first
     * @throws RunnerException when JMH fails, e.g. a side's trial failed
     * @throws IOException when the file cannot be written
     */
    static void run(int rounds, Path directory, List<String> sides) throws RunnerException, IOException {
        List<Round> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<String> order = new ArrayList<>(sides);
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            String loadBefore = loadAverage();
            Map<String, RunResult> sampled = new LinkedHashMap<>();
            Map<String, RunResult> loaded = new LinkedHashMap<>();
            for (String side : order) {
                sampled.put(side, fork(side, 1, Mode.SampleTime));
            }
            for (String side : order) {
                loaded.put(side, fork(side, THREADS, Mode.Throughput));
            }
            Map<String, Side> figures = new LinkedHashMap<>();
            for (String side : sides) {
                figures.put(side, side(sampled.get(side), loaded.get(side)));
            }
            results.add(new Round(String.join(" then ", order), loadBefore + " to " + loadAverage(), figures));
            System.out.printf("%nRound %d of %d:%n%s", round, rounds, table(results.subList(round - 1, round), round));
        }
        String when = "Measured " + LocalDate.now() + ", " + ClusterNodesBenchmark.NODES + " nodes per side (cluster nodes of "
                + ClusterNodesBenchmark.MASTERS_PER_CLUSTER + " masters each), " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + "; " + rounds
                + " rounds; generated by redlock-benchmarks/run.sh --cluster " + rounds + " " + String.join(" ", sides);
        String report = table(results, 1) + "\n" + medians(results);
        System.out.printf("%n%s", report);
        if (directory != null) {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("cluster.md"), "<!-- " + when + " -->\n" + report);
            System.out.println("Wrote " + directory.resolve("cluster.md"));
        }
    }

    private static Side side(RunResult sampled, RunResult loaded) {
        double held = loaded.getSecondaryResults().get("held").getScore();
        double refused = loaded.getSecondaryResults().get("refused").getScore();
        return new Side(sampled.getPrimaryResult().getStatistics().getPercentile(50),
                sampled.getPrimaryResult().getStatistics().getPercentile(99), held, refused / (held + refused));
    }

    /** One fork of one side: sampled times in µs, or throughput per second (attempts, and held and refused ones). */
    private static RunResult fork(String side, int threads, Mode mode) throws RunnerException {
        return new Runner(new OptionsBuilder().include(ClusterNodesBenchmark.class.getSimpleName() + "\\.lockUnlock$")
                .param("nodes", side).threads(threads).mode(mode)
                .timeUnit((mode == Mode.Throughput) ? TimeUnit.SECONDS : TimeUnit.MICROSECONDS).forks(1).warmupIterations(3)
                .measurementIterations(5).shouldFailOnError(true).build()).run().iterator().next();
    }

    /**
     * The rounds as Markdown, a row per side: its figures, and their ratios to the reference's (the round's first side).
     * @param rounds the rounds, in order
     * @param first the number of the first of them
     */
    static String table(List<Round> rounds, int first) {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "| %5s | %-30s | %-15s | %11s | %11s | %9s | %8s | %9s | %9s |%n",
                "round", "nodes", "load average", "p50", "p99", "p50 ratio", "held/s", "ops ratio", "refused"));
        table.append("|------:|--------------------------------|-----------------|------------:|------------:|----------:|---------:|")
                .append("----------:|----------:|\n");
        for (int i = 0; i < rounds.size(); i++) {
            Round round = rounds.get(i);
            for (Map.Entry<String, Side> side : round.sides().entrySet()) {
                table.append(String.format(Locale.ROOT, "| %5d | %-30s | %-15s | %8.1f µs | %8.1f µs | %9.2f | %8.0f | %9.2f | %7.1f %% |%n",
                        first + i, side.getKey(), round.load(), side.getValue().p50(), side.getValue().p99(), round.p50Ratio(side.getKey()),
                        side.getValue().heldPerSecond(), round.heldRatio(side.getKey()), side.getValue().refusedShare() * 100));
            }
        }
        return table.append(String.format(Locale.ROOT, "p50 and p99 at 1 thread; held/s: locks held and released per second at %d threads; "
                + "ratios: over the first side's figure in the same round; refused: share of the attempts at %d threads%n", THREADS, THREADS))
                .toString();
    }

    /** Each side's medians over the rounds, of its figures and of its ratios; and whether cluster over standalone is within issue 25's limit. */
    static String medians(List<Round> rounds) {
        StringBuilder medians = new StringBuilder(String.format(Locale.ROOT, "Medians of %d round(s):%n", rounds.size()));
        for (String side : rounds.get(0).sides().keySet()) {
            medians.append(String.format(Locale.ROOT, "- %s: p50 %.1f µs (ratio %.2f), %d threads %.0f held/s (ratio %.2f)%n", side,
                    median(rounds.stream().mapToDouble((round) -> round.sides().get(side).p50()).toArray()),
                    median(rounds.stream().mapToDouble((round) -> round.p50Ratio(side)).toArray()), THREADS,
                    median(rounds.stream().mapToDouble((round) -> round.sides().get(side).heldPerSecond()).toArray()),
                    median(rounds.stream().mapToDouble((round) -> round.heldRatio(side)).toArray())));
        }
        List<String> sides = List.copyOf(rounds.get(0).sides().keySet());
        if (sides.get(0).equals("standalone") && sides.contains("cluster")) {
            double ratio = median(rounds.stream().mapToDouble((round) -> round.p50Ratio("cluster")).toArray());
            medians.append(String.format(Locale.ROOT, "Issue 25, p50 cluster / standalone at most %.2f: %.2f, %s%n", P50_LIMIT, ratio,
                    (ratio <= P50_LIMIT) ? "met" : "not met"));
        }
        return medians.toString();
    }

    /** The median: the middle value, or the mean of the two middle ones. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The 1-minute load average of the machine (Linux), or "n/a". */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (IOException | RuntimeException ex) {
            return "n/a";
        }
    }

}
