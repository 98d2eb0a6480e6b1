package io.github.redlock.core.internal.support;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RedlockArgumentException;

/**
 * The checks and conversions of the durations lock operations take: each check names its argument.
 */
public final class Durations {

    /** Longer durations are cut to this, so that deadline arithmetic on {@code nanoTime} cannot overflow. */
    private static final Duration LONGEST = Duration.ofDays(365);

    private Durations() {
    }

    /** A lease's time to live in whole ms: at least 1, at most {@code maxTtlMillis}. */
    public static long ttlMillis(Duration ttl, long maxTtlMillis) {
        if (ttl == null || ttl.isNegative() || ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw new RedlockArgumentException("ttl", "ttl must be at least 1 ms, was " + ttl);
        }
        // In whole ms, as toMillis() counts them, but compared first: toMillis() overflows on the longest durations.
        if (ttl.compareTo(Duration.ofMillis(maxTtlMillis).plusMillis(1)) >= 0) {
            throw new RedlockArgumentException("ttl", "ttl must be at most the maxTtl of " + Duration.ofMillis(maxTtlMillis)
                    + " (Redlock.builder().maxTtl(…), redlock.max-ttl), was " + ttl + "; for longer work, extend the lease "
                    + "(autoExtend) instead");
        }
        return ttl.toMillis();
    }

    /** How long to keep trying, in ns: zero or more. */
    public static long waitNanos(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new RedlockArgumentException("waitTime", "waitTime must be zero or positive, was " + waitTime);
        }
        return saturatedNanos(waitTime);
    }

    /** A duration in nanoseconds, capped at a year. */
    public static long saturatedNanos(Duration duration) {
        return (duration.compareTo(LONGEST) > 0) ? LONGEST.toNanos() : duration.toNanos();
    }

    /** Nanoseconds as milliseconds with one decimal, for messages: {@code "12.3 ms"}. */
    public static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / (double) TimeUnit.MILLISECONDS.toNanos(1));
    }

}
