package io.github.redlock.chaos;

import java.util.Arrays;
import java.util.Locale;

/**
 * The median, 99th percentile and maximum of a set of durations, in milliseconds (nearest-rank percentiles: the
 * smallest value that at least that share of the set does not exceed).
 *
 * @param count how many durations there were
 * @param p50Millis the median
 * @param p99Millis the 99th percentile
 * @param maxMillis the largest
 */
record Percentiles(long count, double p50Millis, double p99Millis, double maxMillis) {

    /** The percentiles of the given durations in nanoseconds (sorted in place). */
    static Percentiles ofNanos(long[] nanos) {
        if (nanos.length == 0) {
            return new Percentiles(0, 0, 0, 0);
        }
        Arrays.sort(nanos);
        return new Percentiles(nanos.length, millis(rank(nanos, 0.50)), millis(rank(nanos, 0.99)),
                millis(nanos[nanos.length - 1]));
    }

    private static long rank(long[] sorted, double share) {
        int index = (int) Math.ceil(share * sorted.length) - 1;
        return sorted[Math.max(0, index)];
    }

    private static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }

    /** The figures in words, e.g. {@code p50 12.3 ms, p99 45.6 ms, max 78.9 ms (n=1000)}. */
    String text() {
        if (this.count == 0) {
            return "none (n=0)";
        }
        return String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", this.p50Millis, this.p99Millis,
                this.maxMillis, this.count);
    }

}
