package io.github.redlock.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class RedlockArgumentIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @Test
    void nullOrBlankKeyIsRejectedByName() {
        for (String key : Arrays.asList(null, "", "  ")) {
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire(key, Duration.ofSeconds(1)))
                    .withMessageStartingWith("key ");
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().acquire(key, Duration.ofSeconds(1), Duration.ZERO))
                    .withMessageStartingWith("key ");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> this.redlock.get().tryAcquireAsync(key, Duration.ofSeconds(1), Duration.ZERO))
                    .withMessageStartingWith("key ");
        }
    }

    @Test
    void missingZeroNegativeOrSubMillisecondTtlIsRejectedByName() {
        for (Duration ttl : Arrays.asList(null, Duration.ZERO, Duration.ofSeconds(-1), Duration.ofNanos(500))) {
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire("k", ttl)).withMessageStartingWith("ttl ");
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().acquire("k", ttl, Duration.ZERO))
                    .withMessageStartingWith("ttl ");
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquireAsync("k", ttl, Duration.ZERO))
                    .withMessageStartingWith("ttl ");
        }
        RedlockLease lease = this.redlock.get().acquire("k", Duration.ofSeconds(5), Duration.ZERO);
        assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(null)).withMessageStartingWith("ttl ");
        assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO)).withMessageStartingWith("ttl ");
        lease.release();
    }

    @Test
    void missingOrNegativeWaitTimeIsRejectedByName() {
        for (Duration wait : Arrays.asList(null, Duration.ofMillis(-1))) {
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquire("k", Duration.ofSeconds(1), wait))
                    .withMessageStartingWith("waitTime ");
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().acquire("k", Duration.ofSeconds(1), wait))
                    .withMessageStartingWith("waitTime ");
            assertThatIllegalArgumentException().isThrownBy(() -> this.redlock.get().tryAcquireAsync("k", Duration.ofSeconds(1), wait))
                    .withMessageStartingWith("waitTime ");
        }
    }

    @Test
    void badNodeListsAreRejectedWithWhatToWrite() {
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().build())
                .withMessageStartingWith("nodes must list at least one").withMessageContaining("redis://");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(List.of()).build())
                .withMessageStartingWith("nodes must list at least one");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes((String[]) null).build())
                .withMessageStartingWith("nodes must list at least one");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes("redis://127.0.0.1:1", null).build())
                .withMessageStartingWith("nodes[1] ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes("redis://127.0.0.1:1", " ").build())
                .withMessageStartingWith("nodes[1] ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes("127.0.0.1:6379").build())
                .withMessageStartingWith("nodes[0] '127.0.0.1:6379' is not a Redis URI").withMessageContaining("redis://host:port");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestSupport.patientBuilder().nodes("redis://127.0.0.1:7001", "redis://127.0.0.1:7001").build())
                .withMessageContaining("127.0.0.1:7001 twice");
    }

    @Test
    void badSettingsAreRejectedByName() {
        List<String> nodes = redis.uris();
        assertThatIllegalArgumentException().isThrownBy(() -> Redlock.builder().nodes(nodes).nodeTimeout(null).build())
                .withMessageStartingWith("nodeTimeout ");
        assertThatIllegalArgumentException().isThrownBy(() -> Redlock.builder().nodes(nodes).nodeTimeout(Duration.ZERO).build())
                .withMessageStartingWith("nodeTimeout ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).clockDriftFactor(-0.1).build())
                .withMessageStartingWith("clockDriftFactor ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).clockDriftFactor(1).build())
                .withMessageStartingWith("clockDriftFactor ");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).clockDriftFactor(Double.NaN).build())
                .withMessageStartingWith("clockDriftFactor ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).retryDelay(Duration.ZERO).build())
                .withMessageStartingWith("retryDelay ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).keyPrefix(null).build())
                .withMessageStartingWith("keyPrefix ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).acquisitionBudget(0).build())
                .withMessageStartingWith("acquisitionBudget ");
        assertThatIllegalArgumentException().isThrownBy(() -> TestSupport.patientBuilder().nodes(nodes).acquisitionBudget(1.5).build())
                .withMessageStartingWith("acquisitionBudget ");
    }

    @Test
    void eachRejectionCarriesTheArgumentsNameForIntegrations() {
        RedlockLease lease = this.redlock.get().acquire("named", Duration.ofSeconds(5), Duration.ZERO);
        java.util.Map<String, org.assertj.core.api.ThrowableAssert.ThrowingCallable> calls = new java.util.LinkedHashMap<>();
        calls.put("key", () -> this.redlock.get().tryAcquire(" ", Duration.ofSeconds(1)));
        calls.put("ttl", () -> this.redlock.get().tryAcquireRead("k", Duration.ZERO));
        calls.put("waitTime", () -> this.redlock.get().tryAcquireWrite("k", Duration.ofSeconds(1), Duration.ofMillis(-1)));
        calls.put("maxHold", () -> lease.autoExtend(Duration.ZERO));
        calls.put("nodes", () -> TestSupport.patientBuilder().nodes("127.0.0.1:6379").build());
        calls.put("nodeTimeout", () -> Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ZERO).build());
        calls.put("acquisitionBudget", () -> TestSupport.patientBuilder().nodes(redis.uris()).acquisitionBudget(2).build());
        calls.forEach((argument, call) -> assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(call)
                .satisfies((ex) -> assertThat(ex.getArgument()).isEqualTo(argument))
                .withMessageStartingWith(argument));
        lease.release();
    }

    @Test
    void closedRedlockRefusesNewAcquisitions() {
        Redlock closed = TestSupport.patientBuilder().nodes(redis.uris()).build();
        closed.close();
        assertThatIllegalStateException().isThrownBy(() -> closed.tryAcquire("k", Duration.ofSeconds(1)))
                .withMessageContaining("closed");
    }

    @Test
    void closingARedlockTwiceIsHarmless() {
        Redlock closed = TestSupport.patientBuilder().nodes(redis.uris()).build();
        closed.close();
        assertThatNoException().isThrownBy(closed::close);
        assertThatIllegalStateException().isThrownBy(() -> closed.tryAcquire("k", Duration.ofSeconds(1)))
                .withMessageContaining("closed");
        assertThat(closed.toString()).contains("quorum=2");
    }

}
