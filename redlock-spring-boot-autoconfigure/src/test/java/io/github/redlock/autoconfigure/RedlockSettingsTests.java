package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link RedlockSettings}: a setting the core's builder refused becomes the failure Spring Boot reports for the
 * {@code redlock.*} property of the same name, with the property's value and the core's reason.
 */
class RedlockSettingsTests {

    private final RedlockProperties properties = new RedlockProperties();

    @Test
    void eachBuilderSettingIsReportedAsItsPropertyWithItsValue() {
        this.properties.setClockDriftFactor(1.5);
        this.properties.setRetryDelay(Duration.ofMillis(-1));
        this.properties.setKeyPrefix("p:");
        this.properties.setAcquisitionBudget(0.0);
        this.properties.setMaxTtl(Duration.ofDays(400));
        this.properties.setRestartQuarantine(RestartQuarantine.NEVER);
        assertReported("clockDriftFactor", "redlock.clock-drift-factor", 1.5);
        assertReported("retryDelay", "redlock.retry-delay", Duration.ofMillis(-1));
        assertReported("keyPrefix", "redlock.key-prefix", "p:");
        assertReported("acquisitionBudget", "redlock.acquisition-budget", 0.0);
        assertReported("maxTtl", "redlock.max-ttl", Duration.ofDays(400));
        assertReported("restartQuarantine", "redlock.restart-quarantine", RestartQuarantine.NEVER);
    }

    @Test
    void aSettingWithoutPropertyIsReportedUnderItsNameWithoutValue() {
        InvalidConfigurationPropertyValueException failure = invalid("observationRegistry", "observationRegistry must not be null",
                List.of());
        assertThat(failure.getName()).isEqualTo("redlock.observation-registry");
        assertThat(failure.getValue()).isNull();
        assertThat(failure.getReason()).isEqualTo("observationRegistry must not be null");
    }

    @Test
    void aBadNodeIsReportedWithTheCoresReasonTheListAndAnExample() {
        List<String> nodes = List.of("redis://a:6379", "http://b");
        InvalidConfigurationPropertyValueException failure = invalid("nodes", "nodes[1] 'http://b' is not a redis:// or rediss:// URI",
                nodes);
        assertThat(failure.getName()).isEqualTo("redlock.nodes");
        assertThat(failure.getValue()).isEqualTo(nodes);
        assertThat(failure.getReason()).startsWith("nodes[1] 'http://b' is not a redis:// or rediss:// URI.\n\nList the independent "
                + "Redis masters under redlock.nodes, for example:\n\n    redlock:\n      nodes:\n        - redis://10.0.0.1:6379\n")
                .endsWith("(rediss:// for TLS, redis://:password@host:port/db with a password; 3 or 5 nodes survive the loss of 1 or 2)");
    }

    @Test
    void aMissingNodeListIsReportedAsMissing() {
        InvalidConfigurationPropertyValueException failure = invalid("nodes", "nodes must list at least one Redis master", null);
        assertThat(failure.getValue()).isNull();
        assertThat(failure.getReason()).startsWith("redlock.nodes is missing or empty: the lock needs the URIs of the Redis masters it "
                + "runs on.\n\nList the independent Redis masters");
    }

    @Test
    void theCoresRefusalIsTheCause() {
        RedlockArgumentException refusal = new RedlockArgumentException("maxTtl", "maxTtl must be at least 1 ms, was PT0S");
        assertThat(RedlockSettings.invalid(refusal, this.properties, List.of())).hasCause(refusal);
    }

    private void assertReported(String argument, String property, Object value) {
        InvalidConfigurationPropertyValueException failure = invalid(argument, argument + " is wrong", List.of());
        assertThat(failure.getName()).isEqualTo(property);
        assertThat(failure.getValue()).isEqualTo(value);
        assertThat(failure.getReason()).isEqualTo(argument + " is wrong");
    }

    private InvalidConfigurationPropertyValueException invalid(String argument, String message, List<String> nodes) {
        return RedlockSettings.invalid(new RedlockArgumentException(argument, message), this.properties, nodes);
    }

}
