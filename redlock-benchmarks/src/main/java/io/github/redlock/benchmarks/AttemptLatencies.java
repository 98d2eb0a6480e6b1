package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One benchmark thread's attempts to take a lock: how long each successful wait took, how many waits failed,
 * took longer than {@link #STARVED} (starved), or were followed by a release that did not go through. Memory is
 * bounded: the waits are kept in a fixed array of {@value #CAPACITY}; past that, a uniform sample of them
 * (reservoir sampling), while the counts and the maximum stay exact. Written by its own thread, read once the
 * threads are done; synchronized so that the reader sees every write (uncontended, and nothing next to a
 * millisecond-long lock handoff).
 */
final class AttemptLatencies {

    static final int CAPACITY = 1 << 14;

    static final Duration STARVED = Duration.ofSeconds(4);

    private static final long STARVED_NANOS = STARVED.toNanos();

    private final long[] waitMicros = new long[CAPACITY];

    private long acquisitions;

    private long failures;

    private long starved;

    private long failedReleases;

    private long maxMicros;

    /** The sum of every wait that ended with the lock held (exact, unlike the sample), in nanoseconds. */
    private long waitedNanos;

    /** The sum of every release's duration, in nanoseconds. */
    private long releaseNanos;

    /**
     * Records a wait that ended with the lock held, how long its release took, and whether it went through.
     */
    synchronized void acquired(long waitedNanos, long releaseNanos, boolean released) {
        long micros = TimeUnit.NANOSECONDS.toMicros(waitedNanos);
        this.acquisitions++;
        this.waitedNanos += waitedNanos;
        this.releaseNanos += releaseNanos;
        if (this.acquisitions <= CAPACITY) {
            this.waitMicros[(int) this.acquisitions - 1] = micros;
        }
        else {
            long slot = ThreadLocalRandom.current().nextLong(this.acquisitions);
            if (slot < CAPACITY) {
                this.waitMicros[(int) slot] = micros;
            }
        }
        this.maxMicros = Math.max(this.maxMicros, micros);
        if (waitedNanos > STARVED_NANOS) {
            this.starved++;
        }
        if (!released) {
            this.failedReleases++;
        }
    }

    /** How many waits ended with the lock held. */
    synchronized long acquisitions() {
        return this.acquisitions;
    }

    /** The longest wait that ended with the lock held, in microseconds. */
    synchronized long maxMicros() {
        return this.maxMicros;
    }

    /** Records a wait that ended without the lock (the wait time ran out, or the client failed). */
    synchronized void failed() {
        this.failures++;
    }

    /**
     * One line over every thread's attempts, e.g. {@code acquisitions/s=812 p50=4180 us p99=9870 us
     * max=11020 us mean=4390 us, release mean=260 us, waits>4s: 0, failures: 0, failed releases: 0}; the means
     * are exact, the percentiles come from the sample.
     * @param threads each thread's record
     * @param seconds the time over which they were recorded
     * @return the line
     */
    static String summarize(List<AttemptLatencies> threads, double seconds) {
        long acquisitions = 0;
        long failures = 0;
        long starved = 0;
        long failedReleases = 0;
        long max = 0;
        long waitedNanos = 0;
        long releaseNanos = 0;
        long[] waits = new long[threads.size() * CAPACITY];
        int length = 0;
        for (AttemptLatencies thread : threads) {
            synchronized (thread) {
                int kept = (int) Math.min(thread.acquisitions, CAPACITY);
                System.arraycopy(thread.waitMicros, 0, waits, length, kept);
                length += kept;
                acquisitions += thread.acquisitions;
                failures += thread.failures;
                starved += thread.starved;
                failedReleases += thread.failedReleases;
                max = Math.max(max, thread.maxMicros);
                waitedNanos += thread.waitedNanos;
                releaseNanos += thread.releaseNanos;
            }
        }
        waits = Arrays.copyOf(waits, length);
        Arrays.sort(waits);
        return String.format(Locale.ROOT,
                "acquisitions/s=%.0f p50=%d us p99=%d us max=%d us mean=%d us, release mean=%d us, waits>%ds: %d, failures: %d, "
                        + "failed releases: %d",
                acquisitions / seconds, percentile(waits, 0.50), percentile(waits, 0.99), max, meanMicros(waitedNanos, acquisitions),
                meanMicros(releaseNanos, acquisitions),
                STARVED.toSeconds(), starved, failures, failedReleases);
    }

    private static long meanMicros(long totalNanos, long count) {
        return (count == 0) ? -1 : TimeUnit.NANOSECONDS.toMicros(totalNanos / count);
    }

    /** The nearest-rank percentile of sorted values; -1 when there are none. */
    private static long percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[(int) Math.max(0, Math.ceil(fraction * sorted.length) - 1)];
    }

}
