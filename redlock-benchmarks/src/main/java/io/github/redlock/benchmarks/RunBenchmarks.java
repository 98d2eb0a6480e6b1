package io.github.redlock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmark set and prints one table: for each contender, contention and thread count, throughput,
 * p50 and p99 latency, allocation per operation, and the ratios of throughput and p50 to {@code floor}
 * measured in the same run. Arguments: the thread counts, e.g. {@code 1,16,64} (the default).
 */
public final class RunBenchmarks {

    private static final List<String> ORDER = List.of("floor", "redlock", "annotated", "redissonRedlock", "redissonSingle");

    private RunBenchmarks() {
    }

    /**
     * Runs the set.
     * @param args the thread counts, comma-separated
     * @throws RunnerException when JMH fails
     */
    public static void main(String[] args) throws RunnerException {
        int[] threads = Arrays.stream(((args.length > 0) ? args[0] : "1,16,64").split(",")).mapToInt(Integer::parseInt).toArray();
        List<RunResult> results = new ArrayList<>();
        for (int count : threads) {
            results.addAll(run(LockUnlockBenchmark.class.getSimpleName(), count));
        }
        results.addAll(run(PausedNodeBenchmark.class.getSimpleName(), 1));
        print(results);
    }

    private static Collection<RunResult> run(String benchmark, int threads) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder().include(benchmark + "\\.").threads(threads)
                .mode(Mode.Throughput).mode(Mode.SampleTime).addProfiler(GCProfiler.class);
        return new Runner(options.build()).run();
    }

    private static void print(List<RunResult> results) {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (RunResult result : results) {
            String[] name = result.getParams().getBenchmark().split("\\.");
            String method = name[name.length - 1];
            String group = name[name.length - 2].replace("Benchmark", "") + " "
                    + String.valueOf(result.getParams().getParam("contention")).replace("null", "one node paused")
                    + ", " + result.getParams().getThreads() + " thread(s)";
            Row row = rows.computeIfAbsent(group + "|" + method, (key) -> new Row(group, method));
            if (result.getParams().getMode() == Mode.Throughput) {
                row.opsPerSecond = result.getPrimaryResult().getScore() * 1_000_000;
            }
            else {
                row.p50 = result.getPrimaryResult().getStatistics().getPercentile(50);
                row.p99 = result.getPrimaryResult().getStatistics().getPercentile(99);
                Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
                if (alloc == null) {
                    alloc = result.getSecondaryResults().get("·gc.alloc.rate.norm");
                }
                row.bytesPerOp = (alloc != null) ? alloc.getScore() : Double.NaN;
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-48s %-16s %12s %10s %10s %10s %10s %10s%n", "run", "benchmark", "ops/s", "p50 µs",
                "p99 µs", "B/op", "ops/floor", "p50/floor");
        List<String> groups = rows.values().stream().map((row) -> row.group).distinct().toList();
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort(Comparator.comparingInt((Row row) -> groups.indexOf(row.group))
                .thenComparingInt((row) -> ORDER.indexOf(row.method)));
        for (Row row : sorted) {
            Row floor = rows.get(row.group + "|floor");
            System.out.printf(Locale.ROOT, "%-48s %-16s %12.0f %10.1f %10.1f %10.0f %10.2f %10.2f%n", row.group, row.method,
                    row.opsPerSecond, row.p50, row.p99, row.bytesPerOp,
                    (floor != null) ? row.opsPerSecond / floor.opsPerSecond : Double.NaN,
                    (floor != null) ? row.p50 / floor.p50 : Double.NaN);
        }
    }

    /** One contender in one run. */
    private static final class Row {

        final String group;

        final String method;

        double opsPerSecond = Double.NaN;

        double p50 = Double.NaN;

        double p99 = Double.NaN;

        double bytesPerOp = Double.NaN;

        Row(String group, String method) {
            this.group = group;
            this.method = method;
        }

    }

}
