package io.github.redlock.core.internal.support;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

import io.github.redlock.core.RedlockArgumentException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests {@link Durations}: the bounds of a lease's ttl and of a wait time, the messages that name the argument and
 * say what to change, the cap that keeps deadline arithmetic from overflowing, and the millisecond format of messages.
 */
class DurationsTests {

    private static final long MAX_TTL = 60_000;

    @Test
    void aTtlIsInWholeMilliseconds() {
        assertThat(Durations.ttlMillis(Duration.ofMillis(1), MAX_TTL)).isEqualTo(1);
        assertThat(Durations.ttlMillis(Duration.ofSeconds(10), MAX_TTL)).isEqualTo(10_000);
        assertThat(Durations.ttlMillis(Duration.ofNanos(1_999_999), MAX_TTL)).isEqualTo(1);
    }

    @Test
    void aTtlOfExactlyTheMaxTtlIsAllowed() {
        assertThat(Durations.ttlMillis(Duration.ofMinutes(1), MAX_TTL)).isEqualTo(60_000);
        assertThat(Durations.ttlMillis(Duration.ofNanos(60_000_999_999L), MAX_TTL)).isEqualTo(60_000);
    }

    @Test
    void aNullTtlIsRefused() {
        assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> Durations.ttlMillis(null, MAX_TTL))
                .withMessage("ttl must be at least 1 ms, was null")
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("ttl"));
    }

    @Test
    void aTtlBelowOneMillisecondIsRefused() {
        assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> Durations.ttlMillis(Duration.ZERO, MAX_TTL))
                .withMessage("ttl must be at least 1 ms, was PT0S");
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Durations.ttlMillis(Duration.ofNanos(999_999), MAX_TTL))
                .withMessage("ttl must be at least 1 ms, was PT0.000999999S");
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Durations.ttlMillis(Duration.ofSeconds(-5), MAX_TTL))
                .withMessage("ttl must be at least 1 ms, was PT-5S")
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("ttl"));
    }

    @Test
    void aTtlAboveTheMaxTtlIsRefusedWithWhatToDoInstead() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Durations.ttlMillis(Duration.ofMillis(60_001), MAX_TTL))
                .withMessage("ttl must be at most the maxTtl of PT1M (Redlock.builder().maxTtl(…), redlock.max-ttl), was "
                        + "PT1M0.001S; for longer work, extend the lease (autoExtend) instead")
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("ttl"));
    }

    @Test
    void anEnormousTtlIsRefusedWithoutOverflow() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Durations.ttlMillis(ChronoUnit.FOREVER.getDuration(), MAX_TTL))
                .withMessageStartingWith("ttl must be at most the maxTtl of PT1M")
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("ttl"));
    }

    @Test
    void aWaitTimeIsInNanoseconds() {
        assertThat(Durations.waitNanos(Duration.ZERO)).isZero();
        assertThat(Durations.waitNanos(Duration.ofMillis(250))).isEqualTo(250_000_000L);
    }

    @Test
    void aNullOrNegativeWaitTimeIsRefused() {
        assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> Durations.waitNanos(null))
                .withMessage("waitTime must be zero or positive, was null")
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("waitTime"));
        assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> Durations.waitNanos(Duration.ofNanos(-1)))
                .withMessage("waitTime must be zero or positive, was PT-0.000000001S");
    }

    @Test
    void aWaitTimeLongerThanAYearIsCutToAYear() {
        long year = Duration.ofDays(365).toNanos();
        assertThat(Durations.waitNanos(Duration.ofDays(365))).isEqualTo(year);
        assertThat(Durations.waitNanos(Duration.ofDays(366))).isEqualTo(year);
        assertThat(Durations.waitNanos(ChronoUnit.FOREVER.getDuration())).isEqualTo(year);
    }

    @Test
    void aSaturatedDurationAddedToAnyNanoTimeComparesCorrectly() {
        long now = Long.MAX_VALUE - 5; // nanoTime may be anywhere, even about to wrap
        long deadline = now + Durations.saturatedNanos(ChronoUnit.FOREVER.getDuration());
        assertThat(deadline - now).isPositive();
        assertThat(Durations.saturatedNanos(Duration.ofSeconds(3))).isEqualTo(3_000_000_000L);
        assertThat(Durations.saturatedNanos(Duration.ZERO)).isZero();
    }

    @Test
    void millisecondsHaveOneDecimal() {
        assertThat(Durations.millis(12_345_678)).isEqualTo("12.3 ms");
        assertThat(Durations.millis(0)).isEqualTo("0.0 ms");
        assertThat(Durations.millis(49_999)).isEqualTo("0.0 ms");
        assertThat(Durations.millis(50_000)).isEqualTo("0.1 ms");
        assertThat(Durations.millis(2_000_000_000L)).isEqualTo("2000.0 ms");
    }

    @Test
    void millisecondsDoNotDependOnTheDefaultLocale() {
        Locale before = Locale.getDefault(Locale.Category.FORMAT);
        try {
            Locale.setDefault(Locale.Category.FORMAT, Locale.GERMANY);
            assertThat(Durations.millis(12_345_678)).isEqualTo("12.3 ms");
        }
        finally {
            Locale.setDefault(Locale.Category.FORMAT, before);
        }
    }

}
