package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The longest ttl a lock may ask for: it bounds how long a node that restarted without its keys must wait
 * before it votes again, so no acquisition or extension may exceed it.
 */
class RedlockMaxTtlIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @Test
    void aTtlAboveTheDefaultMaxTtlOfSixtySecondsIsRefusedNamingTheLimit() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            assertThatExceptionOfType(RedlockArgumentException.class)
                    .isThrownBy(() -> redlock.tryAcquire("long", Duration.ofSeconds(61)))
                    .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("ttl"))
                    .withMessageContaining("maxTtl of PT1M").withMessageContaining("autoExtend");
            assertThat(redlock.tryAcquire("long", Duration.ofSeconds(60))).hasValueSatisfying(RedlockLease::release);
            assertThat(redlock.maxTtl()).isEqualTo(Duration.ofSeconds(60));
        }
    }

    @Test
    void anExtensionAboveTheMaxTtlIsRefusedWithoutTouchingTheLease() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(Duration.ofSeconds(5)).build()) {
            assertThat(redlock.maxTtl()).isEqualTo(Duration.ofSeconds(5));
            RedlockLease lease = redlock.acquire("extended", Duration.ofSeconds(5), Duration.ZERO);
            assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(6)))
                    .withMessageStartingWith("ttl must be at most the maxTtl of PT5S");
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(5));
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void aLargerMaxTtlAllowsLongerLeases() {
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(Duration.ofMinutes(5)).build()) {
            RedlockLease lease = redlock.tryAcquireWrite("report", Duration.ofMinutes(4)).orElseThrow();
            assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofMinutes(3));
            assertThat(lease.extend(Duration.ofMinutes(5))).isTrue();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void aMaxTtlBelowOneMillisecondIsRefusedByName() {
        for (Duration maxTtl : new Duration[] { null, Duration.ZERO, Duration.ofNanos(10) }) {
            assertThatExceptionOfType(RedlockArgumentException.class)
                    .isThrownBy(() -> TestSupport.patientBuilder().nodes(redis.uris()).maxTtl(maxTtl).build())
                    .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo("maxTtl"))
                    .withMessageStartingWith("maxTtl must be at least 1 ms");
        }
    }

}
