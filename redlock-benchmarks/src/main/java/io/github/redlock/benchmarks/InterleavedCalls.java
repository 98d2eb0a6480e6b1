package io.github.redlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The two calls of {@link LockUnlockBenchmark#annotatedPair}, timed one by one: each invocation makes a call of the
 * Java path ({@code annotated}) and one of the {@linkplain #second second path} ({@code annotatedKotlin}, or
 * {@code annotated} again for the control that shows the harness favours neither place), the second first in every
 * other invocation. Both paths run in the same fork, in the same seconds, on the same nodes and the same JIT-compiled
 * client, so that the load of the moment, which moves one fork against another by 10 % and more on two shared cores,
 * falls on both alike. Only the measurement iterations are recorded, at most {@value #CAPACITY} calls of each (the
 * arrays are allocated once, with the state); at the end of the trial the p50 and mean of each path go to a file in
 * the directory named by the system property {@value #OUTPUT_PROPERTY} (one file per forked JVM and thread, see
 * {@link Result}), or to the standard output without it.
 */
@State(Scope.Thread)
public class InterleavedCalls {

    /** The system property that names the directory of the results. */
    static final String OUTPUT_PROPERTY = "redlock.interleaved.dir";

    /** The calls of each path recorded at most, per thread: twice what 5 × 2 s of measurement make at 150 µs a call. */
    static final int CAPACITY = 1 << 16;

    /** The benchmark the Java path is compared with: {@code annotatedKotlin}, or {@code annotated} for the control. */
    @Param({ "annotatedKotlin" })
    public String second;

    /**
     * 0 for a call of each path per invocation, in turn; n &gt; 0 for one call per invocation, n of one path, then n
     * of the other: the check that no call is timed with work that a call of the other path left running (its last
     * nodes' replies), which then falls on the block's first call only.
     */
    @Param({ "0" })
    public int block;

    private final long[] javaNanos = new long[CAPACITY];

    private final long[] secondNanos = new long[CAPACITY];

    /** The clock of the calls' times: {@link System#nanoTime()}, or a test's. */
    private final LongSupplier clock;

    private int javaRecorded;

    private int secondRecorded;

    private boolean measuring;

    /** The invocations so far: which path goes first in a pair, or whose block it is. */
    private long invocations;

    /** The state JMH makes: timed by {@link System#nanoTime()}. */
    public InterleavedCalls() {
        this(System::nanoTime);
    }

    InterleavedCalls(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * Records the calls of the measurement iterations only.
     * @param iteration the iteration about to run
     */
    @Setup(Level.Iteration)
    public void iteration(IterationParams iteration) {
        this.measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    /**
     * Refuses a second path other than {@code annotatedKotlin} and {@code annotated}, and a negative block; checked
     * once, before the trial.
     */
    @Setup(Level.Trial)
    public void check() {
        if (!List.of("annotatedKotlin", "annotated").contains(this.second)) {
            throw new IllegalArgumentException("second must be annotatedKotlin or annotated (the control), was " + this.second);
        }
        if (this.block < 0) {
            throw new IllegalArgumentException("block must be 0 (pairs) or the calls of one path in a row, was " + this.block);
        }
    }

    /**
     * Makes one call of each path, in alternating order, each timed on its own; or, in blocks, the call of the path
     * whose block it is.
     * @param java the Java call
     * @param second the call of the second path
     */
    void run(Runnable java, Runnable second) {
        long invocation = this.invocations++;
        if (this.block > 0) {
            boolean secondsTurn = (invocation / this.block) % 2 == 1;
            long time = timed(secondsTurn ? second : java);
            if (this.measuring) {
                record(secondsTurn, time);
            }
            return;
        }
        long javaTime;
        long secondTime;
        if (invocation % 2 == 1) {
            secondTime = timed(second);
            javaTime = timed(java);
        }
        else {
            javaTime = timed(java);
            secondTime = timed(second);
        }
        if (this.measuring) {
            record(false, javaTime);
            record(true, secondTime);
        }
    }

    private void record(boolean second, long nanos) {
        if (second && this.secondRecorded < CAPACITY) {
            this.secondNanos[this.secondRecorded++] = nanos;
        }
        else if (!second && this.javaRecorded < CAPACITY) {
            this.javaNanos[this.javaRecorded++] = nanos;
        }
    }

    private long timed(Runnable call) {
        long start = this.clock.getAsLong();
        call.run();
        return this.clock.getAsLong() - start;
    }

    /** What the measurement iterations recorded so far. */
    Result result() {
        return Result.of(this.second, Arrays.copyOf(this.javaNanos, this.javaRecorded),
                Arrays.copyOf(this.secondNanos, this.secondRecorded));
    }

    /** Writes what the trial measured (see the class). */
    @TearDown(Level.Trial)
    public void report() {
        Result result = result();
        String directory = System.getProperty(OUTPUT_PROPERTY);
        if (directory == null) {
            System.out.println(result.format());
            return;
        }
        try {
            Path file = Path.of(directory, "interleaved-" + ProcessHandle.current().pid() + "-" + Thread.currentThread().getId() + ".txt");
            Files.writeString(file, result.format());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * What one fork's thread measured: the calls of each path and the p50 and mean of each, in microseconds.
     * @param second the second path's benchmark name
     * @param calls the calls of each path measured (of the one measured fewer times, in blocks)
     * @param javaP50 the Java path's median
     * @param secondP50 the second path's median
     * @param javaMean the Java path's mean
     * @param secondMean the second path's mean
     */
    record Result(String second, int calls, double javaP50, double secondP50, double javaMean, double secondMean) {

        /** The measurements of the two paths, in nanoseconds. */
        static Result of(String second, long[] javaNanos, long[] secondNanos) {
            if (javaNanos.length == 0 || secondNanos.length == 0) {
                throw new IllegalArgumentException("No calls of a path: " + javaNanos.length + " of the Java one, "
                        + secondNanos.length + " of the second (was a measurement iteration run?)");
            }
            return new Result(second, Math.min(javaNanos.length, secondNanos.length), p50(javaNanos), p50(secondNanos),
                    Arrays.stream(javaNanos).average().orElseThrow() / 1000, Arrays.stream(secondNanos).average().orElseThrow() / 1000);
        }

        /** The median in microseconds. */
        private static double p50(long[] nanos) {
            return ClusterComparison.median(Arrays.stream(nanos).asDoubleStream().toArray()) / 1000;
        }

        /** The second path's p50 over the Java path's. */
        double p50Ratio() {
            return this.secondP50 / this.javaP50;
        }

        /** The second path's mean over the Java path's. */
        double meanRatio() {
            return this.secondMean / this.javaMean;
        }

        /** One line, which {@link #parse} reads back. */
        String format() {
            return String.format(Locale.ROOT, "interleaved second=%s calls=%d javaP50=%.3f secondP50=%.3f javaMean=%.3f secondMean=%.3f%n",
                    this.second, this.calls, this.javaP50, this.secondP50, this.javaMean, this.secondMean);
        }

        /** Reads a line of {@link #format}. */
        static Result parse(String line) {
            String[] fields = line.trim().split(" ");
            if (fields.length != 7 || !fields[0].equals("interleaved")) {
                throw new IllegalArgumentException("Not a line of interleaved calls: '" + line.trim() + "'");
            }
            return new Result(value(fields[1], "second"), Integer.parseInt(value(fields[2], "calls")),
                    Double.parseDouble(value(fields[3], "javaP50")), Double.parseDouble(value(fields[4], "secondP50")),
                    Double.parseDouble(value(fields[5], "javaMean")), Double.parseDouble(value(fields[6], "secondMean")));
        }

        private static String value(String field, String name) {
            if (!field.startsWith(name + "=")) {
                throw new IllegalArgumentException("Expected " + name + "=…, found '" + field + "'");
            }
            return field.substring(name.length() + 1);
        }

    }

}
