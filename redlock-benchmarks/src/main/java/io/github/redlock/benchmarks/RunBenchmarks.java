package io.github.redlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.CompilerProfiler;
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
 * measured in the same run; then the hot-key handoff ({@link HandoffBenchmark}) at 8 and 32 threads, with each
 * contender's ratio to Redisson's {@code RLock}. Arguments: the thread counts, e.g. {@code 1,16,64} (the default),
 * and optionally a directory in which to write the tables as Markdown ({@code results.md}, {@code handoff.md})
 * and the charts as SVG ({@code latency.svg}, {@code handoff.svg}), for docs/evidence/performance.md. {@code --chart-only
 * <directory>} draws the charts again from the directory's tables, without running anything.
 * <p>
 * {@code --kotlin [threads] [directory]} compares the annotated Kotlin path with the annotated Java one (issue 23:
 * {@code annotatedKotlin} at most 1.10 × {@code annotated}): {@code floor}, {@code annotated}, {@code annotatedKotlin}
 * and {@code kotlinCoroutine} of {@link LockUnlockBenchmark}, uncontended, at 1 thread unless told, in
 * {@value #KOTLIN_ROUNDS} rounds unless told, of one fork of each contender, so that the contenders take turns through
 * the run and a change of the machine's load falls on all of them. The first round runs the four; each later one runs
 * the two that issue 23 compares, {@code annotated} and {@code annotatedKotlin}, the Kotlin one first in even rounds
 * (as {@code --cluster} alternates its sides), so that a drift of the load within a round favours neither. It prints each
 * round and the means, with the ratios Kotlin/Java and to the floor, then the ratio of each round and their median,
 * which one fork that ran on a busier or quieter machine than its partner moves least, and writes all of it to
 * {@code kotlin.md} in the directory, if one is given. It samples the time of each operation only (JMH's
 * {@code SampleTime}, half the time of a run in both modes): its ops/s are the threads over the mean time of an
 * operation. It ends with the interleaved comparison.
 * <p>
 * {@code --interleaved [threads] [forks]} runs the interleaved comparison alone and prints it: {@code annotatedPair}
 * in {@value #INTERLEAVED_FORKS} forks unless told, each of which times both paths in the same seconds
 * ({@link InterleavedCalls}), so that the load of the moment, which moves one fork against another by more than the
 * margin to the limit, falls on both; before each, a control fork that times the Java path against itself in the
 * same places (its ratio is the harness's own bias). It prints each fork's ratio and their median, the controls', and
 * each fork's Kotlin p50 over the Java p50 of the control before it.
 * <p>
 * {@code --cluster [rounds] [directory] [sides...]} compares cluster nodes with standalone nodes (issue 25, see
 * {@link ClusterComparison}): the p50 at 1 thread and the throughput at 64 threads of {@link ClusterNodesBenchmark},
 * in 3 rounds unless told, on the sides {@code standalone} and {@code cluster} unless told (more of the benchmark's
 * variants take the cluster side's cost apart), and writes them to {@code cluster.md} in the directory, if one is given.
 * <p>
 * {@code --fenced-transactions [threads] [forks]} measures what {@code @Redlocked(fenced = true)} costs a transaction
 * on PostgreSQL against the same lock without the fence (issue 39, see {@link FencedTransactionComparison}): both in
 * the same seconds in {@value FencedTransactionComparison#INTERLEAVED_FORKS} forks unless told, then a fork of each and
 * of the transaction without a lock; at 1 thread unless told; it prints the figures.
 */
public final class RunBenchmarks {

    /** The thread counts of the hot-key handoff runs. */
    private static final int[] HANDOFF_THREADS = { 8, 32 };

    private static final List<String> ORDER = List.of("floor", "redlock", "fenced", "observed", "read", "write", "annotated",
            "annotatedKotlin", "kotlinCoroutine", "redissonRedlock", "redissonSingle");

    /**
     * The rounds of the Kotlin comparison unless told: one fork of each contender per round. Two forks of the same
     * benchmark differ by 10 % and more on two shared cores (JIT decisions, the load of the moment), more than the
     * margin to the limit: the rounds give the absolute figures, and the interleaved forks the ratio.
     */
    private static final int KOTLIN_ROUNDS = 6;

    /**
     * The warm-up iterations (2 s each) of each fork of the Kotlin comparison. The Kotlin path runs more code (Reactor,
     * the coroutines, Kotlin reflection in Spring's AOP), which the JIT compiler takes longer to settle: with 3 of them,
     * as the other benchmarks have, the compiler still worked through the measurement, 9.5 s of compilation in 16 s
     * measured on two cores against 0.5 s for the Java path ({@code -prof comp}), and the comparison measured the warm-up.
     * Each round reports the compilation while measured, so that a comparison still warming up shows.
     */
    private static final int KOTLIN_WARMUP_ITERATIONS = 15;

    /**
     * The forks of the interleaved comparison ({@link InterleavedCalls}) unless told, each after a control fork. Within
     * a fork, the two paths share the load of every second; three forks show whether the JIT decisions of one fork
     * moved its ratio.
     */
    private static final int INTERLEAVED_FORKS = 3;

    private RunBenchmarks() {
    }

    /**
     * Runs the set.
     * @param args the thread counts, comma-separated; then the output directory, if any
     * @throws RunnerException when JMH fails
     * @throws IOException when the output cannot be written
     */
    public static void main(String[] args) throws RunnerException, IOException {
        System.setProperty("java.awt.headless", "true"); // the charts are drawn off-screen
        if (args.length == 2 && args[0].equals("--chart-only")) {
            redrawChart(Path.of(args[1]));
            redrawHandoffChart(Path.of(args[1]));
            return;
        }
        if (args.length > 0 && args[0].equals("--cluster")) {
            ClusterComparison.run((args.length > 1) ? Integer.parseInt(args[1]) : 3, (args.length > 2) ? Path.of(args[2]) : null,
                    (args.length > 3) ? List.of(args).subList(3, args.length) : ClusterComparison.DEFAULT_SIDES);
            return;
        }
        if (args.length > 0 && args[0].equals("--fenced-transactions")) {
            FencedTransactionComparison.run((args.length > 1) ? Integer.parseInt(args[1]) : 1,
                    (args.length > 2) ? Integer.parseInt(args[2]) : FencedTransactionComparison.INTERLEAVED_FORKS);
            return;
        }
        if (args.length > 0 && args[0].equals("--interleaved")) {
            System.out.print(interleaved((args.length > 1) ? Integer.parseInt(args[1]) : 1,
                    (args.length > 2) ? Integer.parseInt(args[2]) : INTERLEAVED_FORKS));
            return;
        }
        if (args.length > 0 && args[0].equals("--kotlin")) {
            compareKotlin((args.length > 1) ? Integer.parseInt(args[1]) : 1, (args.length > 2) ? Path.of(args[2]) : null,
                    (args.length > 3) ? Integer.parseInt(args[3]) : KOTLIN_ROUNDS);
            return;
        }
        int[] threads = Arrays.stream(((args.length > 0) ? args[0] : "1,16,64").split(",")).mapToInt(Integer::parseInt).toArray();
        List<RunResult> results = new ArrayList<>();
        for (int count : threads) {
            results.addAll(run(LockUnlockBenchmark.class.getSimpleName(), count));
        }
        results.addAll(run(PausedNodeBenchmark.class.getSimpleName(), 1));
        List<RunResult> handoff = new ArrayList<>();
        for (int count : HANDOFF_THREADS) {
            handoff.addAll(new Runner(new OptionsBuilder().include(HandoffBenchmark.class.getSimpleName() + "\\.(redlock|redisson.*)$")
                    .threads(count).build()).run());
        }
        // The fairness check: two clients of 8 threads each; its trial prints each client's share of the grants.
        new Runner(new OptionsBuilder().include(HandoffBenchmark.class.getSimpleName() + "\\.redlockTwoClients$").threads(16).build()).run();
        List<Row> rows = rows(results);
        String table = table(rows);
        String handoffTable = handoffTable(handoff);
        System.out.println();
        System.out.print(table);
        System.out.println();
        System.out.print(kotlinTable(rows));
        System.out.println();
        System.out.print(handoffTable);
        if (args.length > 1) {
            Path directory = Path.of(args[1]);
            Files.createDirectories(directory);
            String when = "Measured " + LocalDate.now() + " on five local Redis nodes, " + Runtime.getRuntime().availableProcessors()
                    + " cores, " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                    + "; generated by redlock-benchmarks/run.sh";
            Files.writeString(directory.resolve("results.md"), "<!-- " + when + " -->\n" + table);
            LatencyChart chart = new LatencyChart(when);
            for (Row row : rows) {
                Row floor = row.floor;
                chart.add(row.group, row.method, row.p50, (floor != null) ? row.p50 / floor.p50 : Double.NaN);
            }
            Files.writeString(directory.resolve("latency.svg"), chart.toSvg());
            Files.writeString(directory.resolve("handoff.md"), "<!-- " + when + " -->\n" + handoffTable);
            redrawHandoffChart(directory);
            System.out.println("Wrote " + directory.resolve("results.md") + ", " + directory.resolve("latency.svg") + ", "
                    + directory.resolve("handoff.md") + " and " + directory.resolve("handoff.svg"));
        }
    }

    /**
     * The Kotlin comparison: the rounds, each a fork of each contender in turn; then the means of the rounds, and the
     * median of the rounds' ratios.
     * @param threads the benchmark threads, each with its own key
     * @param directory where to write {@code kotlin.md}, or null
     * @param roundCount how many rounds, at least 1
     */
    private static void compareKotlin(int threads, Path directory, int roundCount) throws RunnerException, IOException {
        if (roundCount < 1) {
            throw new IllegalArgumentException("The Kotlin comparison needs at least 1 round, was " + roundCount);
        }
        List<List<Row>> rounds = new ArrayList<>();
        List<String> compiling = new ArrayList<>();
        for (int round = 1; round <= roundCount; round++) {
            List<RunResult> results = new ArrayList<>();
            for (String contender : kotlinContenders(round)) {
                ChainedOptionsBuilder options = new OptionsBuilder()
                        .include(LockUnlockBenchmark.class.getSimpleName() + "\\." + contender + "$")
                        .param("contention", "uncontended").threads(threads).forks(1).warmupIterations(KOTLIN_WARMUP_ITERATIONS)
                        .measurementIterations(5).mode(Mode.SampleTime).addProfiler(GCProfiler.class).addProfiler(CompilerProfiler.class);
                results.addAll(new Runner(options.build()).run());
            }
            rounds.add(rows(results));
            compiling.add(compilationWhileMeasured(results));
        }
        String interleaved = interleaved(threads, INTERLEAVED_FORKS);
        List<Row> means = means(rounds);
        StringBuilder report = new StringBuilder();
        for (int round = 0; round < rounds.size(); round++) {
            report.append(String.format(Locale.ROOT, "Round %d of %d (one fork each, in this order: %s; %d × 2 s warm-up, 5 × 2 s measured):%n%s%s%n",
                    round + 1, rounds.size(), String.join(", ", kotlinContenders(round + 1)), KOTLIN_WARMUP_ITERATIONS,
                    kotlinTable(rounds.get(round)), compiling.get(round)));
        }
        String when = "Measured " + LocalDate.now() + " on five local Redis nodes, " + Runtime.getRuntime().availableProcessors()
                + " cores, " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + "; means of "
                + rounds.size() + " rounds; generated by redlock-benchmarks/run.sh --kotlin";
        String summary = table(means) + "\n" + kotlinTable(means) + "\n" + kotlinRatios(rounds) + "\n"
                + "Interleaved (one call of each path per invocation of annotatedPair, in alternating order; "
                + KOTLIN_WARMUP_ITERATIONS + " × 2 s warm-up, 5 × 2 s measured per fork):\n\n" + interleaved;
        System.out.println();
        System.out.print(report);
        System.out.println("Means of the " + rounds.size() + " rounds:");
        System.out.print(summary);
        if (directory != null) {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("kotlin.md"), "<!-- " + when + " -->\n" + summary + "\n" + report);
            System.out.println("Wrote " + directory.resolve("kotlin.md"));
        }
    }

    /**
     * The interleaved comparison ({@link InterleavedCalls}): {@code annotatedPair} in {@code forks} forks against the
     * Kotlin path, each after a fork of the control, which times the Java path against itself in the same places;
     * uncontended, warmed up as the rounds are. The controls, one before each Kotlin fork, give the harness's own bias
     * and the Java path's time in a JVM that never ran the Kotlin one.
     * @param threads the benchmark threads, each with its own key
     * @param forks the forks against the Kotlin path, at least 1
     * @return the table of the forks, their medians and the controls
     */
    private static String interleaved(int threads, int forks) throws RunnerException, IOException {
        if (forks < 1) {
            throw new IllegalArgumentException("The interleaved comparison needs at least 1 fork, was " + forks);
        }
        List<InterleavedCalls.Result> kotlin = new ArrayList<>();
        List<InterleavedCalls.Result> control = new ArrayList<>();
        for (int fork = 0; fork < forks; fork++) {
            control.addAll(runInterleaved("annotated", threads));
            kotlin.addAll(runInterleaved("annotatedKotlin", threads));
        }
        return interleavedTable(kotlin, control, threads);
    }

    /** Runs one fork of {@code annotatedPair} against the given second path, and reads what each of its threads wrote. */
    private static List<InterleavedCalls.Result> runInterleaved(String second, int threads) throws RunnerException, IOException {
        Path directory = Files.createTempDirectory("redlock-interleaved");
        try {
            new Runner(new OptionsBuilder().include(LockUnlockBenchmark.class.getSimpleName() + "\\.annotatedPair$")
                    .param("contention", "uncontended").param("second", second).threads(threads).forks(1)
                    .warmupIterations(KOTLIN_WARMUP_ITERATIONS).measurementIterations(5).mode(Mode.Throughput)
                    .jvmArgsAppend("-D" + InterleavedCalls.OUTPUT_PROPERTY + "=" + directory).shouldFailOnError(true).build()).run();
            return readInterleaved(directory, threads);
        }
        finally {
            try (Stream<Path> listed = Files.list(directory)) {
                for (Path file : listed.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(directory);
        }
    }

    /**
     * The results that a fork's threads wrote to the directory, by file name.
     * @param directory the directory of {@link InterleavedCalls#OUTPUT_PROPERTY}
     * @param threads the fork's threads, each of which writes one file
     * @return one result per thread
     * @throws IllegalStateException when not every thread wrote its file
     */
    static List<InterleavedCalls.Result> readInterleaved(Path directory, int threads) throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(directory)) {
            files = listed.filter((file) -> file.getFileName().toString().startsWith("interleaved-")).sorted().toList();
        }
        if (files.size() != threads) {
            throw new IllegalStateException("The fork of annotatedPair left " + files.size() + " result file(s) in " + directory
                    + ", one per thread was expected (" + threads + "): a thread failed, or its trial did not end");
        }
        List<InterleavedCalls.Result> results = new ArrayList<>();
        for (Path file : files) {
            results.add(InterleavedCalls.Result.parse(Files.readString(file)));
        }
        return results;
    }

    /**
     * The interleaved forks and their controls, each a row, a control before the fork it ran before; then the median of
     * the forks' ratios, the controls' median, and the Kotlin p50 of each fork over the Java p50 of the control before
     * it (what the ratio is if the Kotlin calls slowed the Java calls they shared a fork with).
     * @param kotlin each fork's (and thread's) result against the Kotlin path
     * @param control the control forks' results, as many, in the same order
     * @param threads the threads of each fork
     * @return the table and the summary lines
     */
    static String interleavedTable(List<InterleavedCalls.Result> kotlin, List<InterleavedCalls.Result> control, int threads) {
        if (kotlin.isEmpty() || kotlin.size() != control.size()) {
            throw new IllegalArgumentException("Every interleaved fork needs its control: " + kotlin.size() + " fork result(s), "
                    + control.size() + " control(s)");
        }
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "| %-26s | %7s | %11s | %13s | %15s | %16s |%n"
                + "|----------------------------|--------:|------------:|--------------:|----------------:|-----------------:|%n",
                "annotatedPair", "calls", "Java p50 µs", "Kotlin p50 µs", "Kotlin/Java p50", "Kotlin/Java mean"));
        double[] acrossForks = new double[kotlin.size()];
        for (int i = 0; i < kotlin.size(); i++) {
            String place = (threads == 1) ? String.valueOf(i / threads + 1) : (i / threads + 1) + ", thread " + (i % threads + 1);
            table.append(interleavedRow("control " + place + ": Java, Java", control.get(i)));
            table.append(interleavedRow("fork " + place, kotlin.get(i)));
            acrossForks[i] = kotlin.get(i).secondP50() / control.get(i).javaP50();
        }
        double p50 = ClusterComparison.median(kotlin.stream().mapToDouble(InterleavedCalls.Result::p50Ratio).toArray());
        double mean = ClusterComparison.median(kotlin.stream().mapToDouble(InterleavedCalls.Result::meanRatio).toArray());
        double controls = ClusterComparison.median(control.stream().mapToDouble(InterleavedCalls.Result::p50Ratio).toArray());
        StringBuilder across = new StringBuilder();
        for (double ratio : acrossForks) {
            across.append(String.format(Locale.ROOT, "%.3f, ", ratio));
        }
        across.setLength(across.length() - 2);
        return table.append(String.format(Locale.ROOT, "median of %d interleaved fork(s): Kotlin/Java p50 %.2f, mean %.2f "
                + "(limit of issue 23: 1.10); of the controls (the harness's own bias, 1.00 when it favours neither place): "
                + "p50 %.2f%nKotlin p50 of each fork over the Java p50 of the control before it: %s (median %.2f)%n",
                kotlin.size(), p50, mean, controls, across, ClusterComparison.median(acrossForks))).toString();
    }

    private static String interleavedRow(String name, InterleavedCalls.Result result) {
        return String.format(Locale.ROOT, "| %-26s | %7d | %11.1f | %13.1f | %15.3f | %16.3f |%n", name, result.calls(),
                result.javaP50(), result.secondP50(), result.p50Ratio(), result.meanRatio());
    }

    /**
     * The contenders of a round of the Kotlin comparison, in the order they run: the first round has the floor and the
     * coroutine caller besides the two compared; the Kotlin path goes first in even rounds.
     */
    static List<String> kotlinContenders(int round) {
        if (round == 1) {
            return List.of("floor", "annotated", "annotatedKotlin", "kotlinCoroutine");
        }
        return (round % 2 == 0) ? List.of("annotatedKotlin", "annotated") : List.of("annotated", "annotatedKotlin");
    }

    /**
     * Each round's {@code annotatedKotlin} over {@code annotated}, p50 and ops/s, and their medians: the figure that
     * issue 23 limits to 1.10.
     */
    private static String kotlinRatios(List<List<Row>> rounds) {
        List<double[]> ratios = new ArrayList<>();
        for (List<Row> round : rounds) {
            Row java = find(round, "annotated");
            Row kotlin = find(round, "annotatedKotlin");
            if (java != null && kotlin != null) {
                ratios.add(new double[] { kotlin.p50 / java.p50, java.opsPerSecond / kotlin.opsPerSecond });
            }
        }
        return kotlinRatioLine(ratios);
    }

    /** The line of the rounds' ratios ({p50, ops} per round) and their medians. */
    static String kotlinRatioLine(List<double[]> ratios) {
        if (ratios.isEmpty()) {
            return "annotatedKotlin over annotated: no round measured both" + System.lineSeparator();
        }
        StringBuilder line = new StringBuilder("annotatedKotlin over annotated, by round (p50; ops): ");
        for (double[] ratio : ratios) {
            line.append(String.format(Locale.ROOT, "%.2f; %.2f | ", ratio[0], ratio[1]));
        }
        line.setLength(line.length() - 3);
        double p50 = ClusterComparison.median(ratios.stream().mapToDouble((ratio) -> ratio[0]).toArray());
        double ops = ClusterComparison.median(ratios.stream().mapToDouble((ratio) -> ratio[1]).toArray());
        return line.append(String.format(Locale.ROOT, "%nmedian of %d round(s): p50 %.2f, ops %.2f (limit of issue 23: 1.10)%n",
                ratios.size(), p50, ops)).toString();
    }

    private static Row find(List<Row> rows, String method) {
        return rows.stream().filter((row) -> row.method.equals(method)).findFirst().orElse(null);
    }

    /** The rows of several runs of the same contenders, each figure the mean of the runs'. */
    private static List<Row> means(List<List<Row>> runs) {
        List<Row> means = new ArrayList<>();
        // Every contender of any run: a fork that failed in one run leaves its row out of that run only.
        List<List<String>> contenders = runs.stream().flatMap(List::stream).map((row) -> List.of(row.group, row.method)).distinct()
                .sorted(Comparator.comparingInt((List<String> contender) -> ORDER.indexOf(contender.get(1)))).toList();
        for (List<String> contender : contenders) {
            Row mean = new Row(contender.get(0), contender.get(1));
            List<Row> same = runs.stream().flatMap(List::stream)
                    .filter((row) -> row.group.equals(mean.group) && row.method.equals(mean.method)).toList();
            mean.opsPerSecond = same.stream().mapToDouble((row) -> row.opsPerSecond).average().orElse(Double.NaN);
            mean.p50 = same.stream().mapToDouble((row) -> row.p50).average().orElse(Double.NaN);
            mean.p99 = same.stream().mapToDouble((row) -> row.p99).average().orElse(Double.NaN);
            mean.bytesPerOp = same.stream().mapToDouble((row) -> row.bytesPerOp).average().orElse(Double.NaN);
            means.add(mean);
        }
        for (Row mean : means) {
            mean.floor = means.stream().filter((row) -> row.group.equals(mean.group) && row.method.equals("floor")).findFirst()
                    .orElse(null);
        }
        return means;
    }

    /** The JIT compiler's time while each contender was measured ({@code -prof comp}), as a line of the round's report. */
    private static String compilationWhileMeasured(List<RunResult> results) {
        StringBuilder line = new StringBuilder("JIT compilation while measured:");
        for (RunResult result : results) {
            String[] name = result.getParams().getBenchmark().split("\\.");
            Result<?> compiled = result.getSecondaryResults().get("compiler.time.profiled");
            line.append(String.format(Locale.ROOT, " %s %s ms,", name[name.length - 1], (compiled != null) ? String.format(Locale.ROOT, "%.0f", compiled.getScore()) : "?"));
        }
        line.setLength(line.length() - 1);
        return line.append(" (of 10 s)").append(System.lineSeparator()).toString();
    }

    /**
     * The Kotlin path against the Java one, per run that has both: the cost of a Kotlin call as a multiple of a Java
     * call's (Java's throughput over Kotlin's, and Kotlin's p50 over Java's), and each one's p50 over the floor's.
     */
    private static String kotlinTable(List<Row> rows) {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "| %-46s | %-16s | %10s | %9s | %8s | %11s | %9s |%n"
                + "|%s|------------------|-----------:|----------:|---------:|------------:|----------:|%n", "run", "Kotlin contender",
                "ops/s", "p50 µs", "B/op", "cost × Java", "p50/floor", "-".repeat(48)));
        for (Row java : rows) {
            if (!java.method.equals("annotated")) {
                continue;
            }
            table.append(String.format(Locale.ROOT, "| %-46s | %-16s | %10.0f | %9.1f | %8.0f | %11s | %9.2f |%n", java.group,
                    "(Java) annotated", java.opsPerSecond, java.p50, java.bytesPerOp, "1", java.p50 / floorP50(java)));
            for (Row kotlin : rows) {
                if (kotlin.group.equals(java.group) && (kotlin.method.equals("annotatedKotlin") || kotlin.method.equals("kotlinCoroutine"))) {
                    table.append(String.format(Locale.ROOT, "| %-46s | %-16s | %10.0f | %9.1f | %8.0f | %5.2f, %4.2f | %9.2f |%n",
                            kotlin.group, kotlin.method, kotlin.opsPerSecond, kotlin.p50, kotlin.bytesPerOp,
                            java.opsPerSecond / kotlin.opsPerSecond, kotlin.p50 / java.p50, kotlin.p50 / floorP50(java)));
                }
            }
        }
        return table.append("cost × Java: Java's ops/s over Kotlin's, then Kotlin's p50 over Java's (1.10 is the limit of issue 23)")
                .append(System.lineSeparator()).toString();
    }

    private static double floorP50(Row row) {
        return (row.floor != null) ? row.floor.p50 : Double.NaN;
    }

    /** Draws the chart again from a directory's {@code results.md}, e.g. after a change to the chart's layout. */
    private static void redrawChart(Path directory) throws IOException {
        List<String> lines = Files.readAllLines(directory.resolve("results.md"));
        String header = lines.get(0);
        LatencyChart chart = new LatencyChart(header.replace("<!--", "").replace("-->", "").trim());
        for (String line : lines.subList(3, lines.size())) {
            String[] cells = line.split("\\|");
            if (cells.length >= 9) {
                chart.add(cells[1].trim(), cells[2].trim(), Double.parseDouble(cells[4].trim()), Double.parseDouble(cells[8].trim()));
            }
        }
        Files.writeString(directory.resolve("latency.svg"), chart.toSvg());
        System.out.println("Wrote " + directory.resolve("latency.svg"));
    }

    /** Draws the handoff chart from a directory's {@code handoff.md}. */
    private static void redrawHandoffChart(Path directory) throws IOException {
        Path table = directory.resolve("handoff.md");
        if (!Files.exists(table)) {
            return;
        }
        List<String> lines = Files.readAllLines(table);
        HandoffChart chart = new HandoffChart(lines.get(0).replace("<!--", "").replace("-->", "").trim());
        for (String line : lines.subList(3, lines.size())) {
            String[] cells = line.split("\\|");
            if (cells.length >= 4) {
                chart.add(Integer.parseInt(cells[1].trim()), cells[2].trim(), Double.parseDouble(cells[3].trim()));
            }
        }
        Files.writeString(directory.resolve("handoff.svg"), chart.toSvg());
        System.out.println("Wrote " + directory.resolve("handoff.svg"));
    }

    /** The handoff runs as Markdown: per thread count and contender, acquisitions/s and the ratio to RLock's. */
    private static String handoffTable(List<RunResult> results) {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "| %7s | %-15s | %14s | %8s |%n|--------:|-----------------|"
                + "---------------:|---------:|%n", "threads", "contender", "acquisitions/s", "× RLock"));
        for (RunResult result : results) {
            int threads = result.getParams().getThreads();
            double reference = results.stream().filter((other) -> other.getParams().getThreads() == threads
                    && other.getParams().getBenchmark().endsWith("." + HandoffChart.REFERENCE))
                    .mapToDouble((other) -> other.getPrimaryResult().getScore()).findFirst().orElse(Double.NaN);
            String method = result.getParams().getBenchmark().substring(result.getParams().getBenchmark().lastIndexOf('.') + 1);
            double score = result.getPrimaryResult().getScore();
            table.append(String.format(Locale.ROOT, "| %7d | %-15s | %14.0f | %8.2f |%n", threads, method, score, score / reference));
        }
        return table.toString();
    }

    private static Collection<RunResult> run(String benchmark, int threads) throws RunnerException {
        // annotatedPair times the two annotated paths against each other: the Kotlin comparison's, not a contender.
        ChainedOptionsBuilder options = new OptionsBuilder().include(benchmark + "\\.").exclude("\\.annotatedPair$").threads(threads)
                .mode(Mode.Throughput).mode(Mode.SampleTime).addProfiler(GCProfiler.class);
        return new Runner(options.build()).run();
    }

    private static List<Row> rows(List<RunResult> results) {
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
                if (Double.isNaN(row.opsPerSecond)) { // sampled only: the mean time per operation, over the threads
                    row.opsPerSecond = result.getParams().getThreads() * 1_000_000 / result.getPrimaryResult().getScore();
                }
                row.p50 = result.getPrimaryResult().getStatistics().getPercentile(50);
                row.p99 = result.getPrimaryResult().getStatistics().getPercentile(99);
                Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
                if (alloc == null) {
                    alloc = result.getSecondaryResults().get("·gc.alloc.rate.norm");
                }
                row.bytesPerOp = (alloc != null) ? alloc.getScore() : Double.NaN;
            }
        }
        List<String> groups = rows.values().stream().map((row) -> row.group).distinct().toList();
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort(Comparator.comparingInt((Row row) -> groups.indexOf(row.group))
                .thenComparingInt((row) -> ORDER.indexOf(row.method)));
        for (Row row : sorted) {
            row.floor = rows.get(row.group + "|floor");
        }
        return sorted;
    }

    /** The table as Markdown, which also reads well as plain text. */
    private static String table(List<Row> rows) {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "| %-46s | %-15s | %10s | %9s | %9s | %8s | %9s | %9s |%n", "run", "benchmark",
                "ops/s", "p50 µs", "p99 µs", "B/op", "ops/floor", "p50/floor"));
        table.append("|").append("-".repeat(48)).append("|").append("-".repeat(17)).append("|").append("-".repeat(11)).append(":|")
                .append("-".repeat(10)).append(":|").append("-".repeat(10)).append(":|").append("-".repeat(9)).append(":|")
                .append("-".repeat(10)).append(":|").append("-".repeat(10)).append(":|\n");
        for (Row row : rows) {
            Row floor = row.floor;
            table.append(String.format(Locale.ROOT, "| %-46s | %-15s | %10.0f | %9.1f | %9.1f | %8.0f | %9.2f | %9.2f |%n",
                    row.group, row.method, row.opsPerSecond, row.p50, row.p99, row.bytesPerOp,
                    (floor != null) ? row.opsPerSecond / floor.opsPerSecond : Double.NaN,
                    (floor != null) ? row.p50 / floor.p50 : Double.NaN));
        }
        return table.toString();
    }

    /** One contender in one run. */
    private static final class Row {

        final String group;

        final String method;

        double opsPerSecond = Double.NaN;

        double p50 = Double.NaN;

        double p99 = Double.NaN;

        double bytesPerOp = Double.NaN;

        Row floor;

        Row(String group, String method) {
            this.group = group;
            this.method = method;
        }

    }

}
