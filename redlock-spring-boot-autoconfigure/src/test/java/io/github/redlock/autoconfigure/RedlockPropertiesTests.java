package io.github.redlock.autoconfigure;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;

import io.github.redlock.aop.RedlockedAspect;
import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.RedlockConfig;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests {@link RedlockProperties} as Spring Boot binds the {@code redlock.*} properties, with a {@link Binder} over a
 * map and no application context: the defaults (the core's settings unset, their defaults in the metadata the core's own), each property's name and type (durations in every style Boot reads,
 * the node list, the restart quarantine in any case), relaxed names, and a value of the wrong type.
 */
class RedlockPropertiesTests {

    @Test
    void withoutPropertiesTheStartersDefaultsApplyAndTheCoresSettingsStayUnset() {
        RedlockProperties properties = bind(Map.of());
        assertThat(properties.isEnabled()).isTrue();
        assertThat(properties.getNodes()).isEmpty();
        assertThat(properties.getDefaultTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(properties.getDefaultWaitTime()).isZero();
        assertThat(properties.getDefaultMaxHold()).isEqualTo(Duration.ofMinutes(10));
        assertThat(properties.getAspectOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 1);
        // Unset, so that the core's defaults are the only ones (RedlockAutoConfiguration maps only what was set).
        assertThat(properties.getMaxTtl()).isNull();
        assertThat(properties.getRestartQuarantine()).isNull();
        assertThat(properties.getFencing()).isNull();
        assertThat(properties.getNodeTimeout()).isNull();
        assertThat(properties.getClockDriftFactor()).isNull();
        assertThat(properties.getRetryDelay()).isNull();
        assertThat(properties.getKeyPrefix()).isNull();
        assertThat(properties.getAcquisitionBudget()).isNull();
    }

    /**
     * The IDE shows the core's defaults (and the aspect's order) from {@code additional-spring-configuration-metadata.json}:
     * bound as the application would write them, they must be the defaults the core (and the aspect) apply.
     */
    @Test
    void aCommaSeparatedNodeListKeepsEachSentinelNodesHostListWhole() {
        RedlockProperties properties = bind(Map.of("redlock.nodes",
                "redis://10.0.0.1:6379, redis-sentinel://10.0.1.1:26379,10.0.1.2:26379, 10.0.1.3:26379#locks-b,redis://10.0.0.3:6379"));
        assertThat(properties.getNodes()).containsExactly("redis://10.0.0.1:6379",
                "redis-sentinel://10.0.1.1:26379,10.0.1.2:26379,10.0.1.3:26379#locks-b", "redis://10.0.0.3:6379");
    }

    @Test
    void aCommaSeparatedNodeListKeepsEachClusterNodesSeedsWhole() {
        RedlockProperties properties = bind(Map.of("redlock.nodes",
                "redis://10.0.0.1:6379,redis-cluster://10.0.2.1:6379, 10.0.2.2:6379,10.0.2.3:6379,rediss-cluster://10.0.3.1:6379,10.0.3.2:6379"));
        assertThat(properties.getNodes()).containsExactly("redis://10.0.0.1:6379", "redis-cluster://10.0.2.1:6379,10.0.2.2:6379,10.0.2.3:6379",
                "rediss-cluster://10.0.3.1:6379,10.0.3.2:6379");
    }

    @Test
    void aPartWithoutASchemeAfterAnEndedSentinelNodeStaysAnEntryForTheLockToRefuse() {
        RedlockProperties properties = bind(Map.of("redlock.nodes", "redis-sentinel://10.0.1.1:26379#locks-b,10.0.0.2:6379"));
        assertThat(properties.getNodes()).containsExactly("redis-sentinel://10.0.1.1:26379#locks-b", "10.0.0.2:6379");
    }

    @Test
    void theMetadatasDefaultsAreTheCoresDefaults() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> defaults = new LinkedHashMap<>();
            for (Map<String, Object> property : JsonPath.<List<Map<String, Object>>>read(json, "$.properties[*]")) {
                if (property.get("defaultValue") != null) {
                    defaults.put((String) property.get("name"), String.valueOf(property.get("defaultValue")));
                }
            }
            assertThat(defaults).containsKeys("redlock.node-timeout", "redlock.clock-drift-factor", "redlock.retry-delay",
                    "redlock.key-prefix", "redlock.acquisition-budget", "redlock.max-ttl", "redlock.restart-quarantine", "redlock.fencing",
                    "redlock.aspect-order");
            RedlockProperties properties = bind(defaults);
            assertThat(properties.getNodeTimeout()).isEqualTo(RedlockConfig.DEFAULT_NODE_TIMEOUT);
            assertThat(properties.getClockDriftFactor()).isEqualTo(RedlockConfig.DEFAULT_CLOCK_DRIFT_FACTOR);
            assertThat(properties.getRetryDelay()).isEqualTo(RedlockConfig.DEFAULT_RETRY_DELAY);
            assertThat(properties.getKeyPrefix()).isEqualTo(RedlockConfig.DEFAULT_KEY_PREFIX);
            assertThat(properties.getAcquisitionBudget()).isEqualTo(RedlockConfig.DEFAULT_ACQUISITION_BUDGET);
            assertThat(properties.getMaxTtl()).isEqualTo(RedlockConfig.DEFAULT_MAX_TTL);
            assertThat(properties.getRestartQuarantine()).isEqualTo(RedlockConfig.DEFAULT_RESTART_QUARANTINE);
            assertThat(properties.getFencing()).isEqualTo(RedlockConfig.DEFAULT_FENCING);
            assertThat(properties.getAspectOrder()).isEqualTo(RedlockedAspect.DEFAULT_ORDER);
            assertThat(defaults).containsEntry("redlock.aspect-order", Integer.toString(RedlockedAspect.DEFAULT_ORDER));
        }
    }

    @Test
    void everyPropertyBindsUnderItsKebabCaseName() {
        RedlockProperties properties = bind(Map.ofEntries(Map.entry("redlock.enabled", "false"),
                Map.entry("redlock.nodes[0]", "redis://10.0.0.1:6379"), Map.entry("redlock.nodes[1]", "rediss://:secret@10.0.0.2:6380/1"),
                Map.entry("redlock.default-ttl", "15s"), Map.entry("redlock.default-wait-time", "PT2S"),
                Map.entry("redlock.default-max-hold", "1h"), Map.entry("redlock.max-ttl", "2m"),
                Map.entry("redlock.restart-quarantine", "always"), Map.entry("redlock.fencing", "true"),
                Map.entry("redlock.node-timeout", "20ms"), Map.entry("redlock.clock-drift-factor", "0.05"),
                Map.entry("redlock.retry-delay", "250"), Map.entry("redlock.key-prefix", "app:locks:"),
                Map.entry("redlock.acquisition-budget", "0.33"), Map.entry("redlock.aspect-order", "-5")));
        assertThat(properties.isEnabled()).isFalse();
        assertThat(properties.getNodes()).containsExactly("redis://10.0.0.1:6379", "rediss://:secret@10.0.0.2:6380/1");
        assertThat(properties.getDefaultTtl()).isEqualTo(Duration.ofSeconds(15));
        assertThat(properties.getDefaultWaitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(properties.getDefaultMaxHold()).isEqualTo(Duration.ofHours(1));
        assertThat(properties.getMaxTtl()).isEqualTo(Duration.ofMinutes(2));
        assertThat(properties.getRestartQuarantine()).isEqualTo(RestartQuarantine.ALWAYS);
        assertThat(properties.getFencing()).isTrue();
        assertThat(properties.getNodeTimeout()).isEqualTo(Duration.ofMillis(20));
        assertThat(properties.getClockDriftFactor()).isEqualTo(0.05);
        assertThat(properties.getRetryDelay()).isEqualTo(Duration.ofMillis(250)); // a bare number is in milliseconds
        assertThat(properties.getKeyPrefix()).isEqualTo("app:locks:");
        assertThat(properties.getAcquisitionBudget()).isEqualTo(0.33);
        assertThat(properties.getAspectOrder()).isEqualTo(-5);
    }

    @Test
    void nodesBindFromACommaSeparatedList() {
        RedlockProperties properties = bind(Map.of("redlock.nodes", "redis://a:6379,redis://b:6379, redis://c:6379"));
        assertThat(properties.getNodes()).containsExactly("redis://a:6379", "redis://b:6379", "redis://c:6379");
    }

    @Test
    void relaxedNamesBindToo() {
        RedlockProperties properties = bind(Map.of("redlock.maxTtl", "90s", "redlock.key_prefix", "x:"));
        assertThat(properties.getMaxTtl()).isEqualTo(Duration.ofSeconds(90));
        assertThat(properties.getKeyPrefix()).isEqualTo("x:");
    }

    @Test
    void theRestartQuarantineBindsInAnyCase() {
        assertThat(bind(Map.of("redlock.restart-quarantine", "NEVER")).getRestartQuarantine()).isEqualTo(RestartQuarantine.NEVER);
        assertThat(bind(Map.of("redlock.restart-quarantine", "Auto")).getRestartQuarantine()).isEqualTo(RestartQuarantine.AUTO);
    }

    @Test
    void anEmptyKeyPrefixIsKept() {
        assertThat(bind(Map.of("redlock.key-prefix", "")).getKeyPrefix()).isEmpty();
    }

    @Test
    void aDurationThatIsNotOneFailsTheBindingNamingTheProperty() {
        assertThatExceptionOfType(BindException.class).isThrownBy(() -> bind(Map.of("redlock.max-ttl", "a minute")))
                .satisfies((ex) -> assertThat(ex.getProperty().getName()).hasToString("redlock.max-ttl"))
                .withMessage("Failed to bind properties under 'redlock.max-ttl' to java.time.Duration");
    }

    @Test
    void anUnknownRestartQuarantineFailsTheBinding() {
        assertThatExceptionOfType(BindException.class).isThrownBy(() -> bind(Map.of("redlock.restart-quarantine", "sometimes")))
                .satisfies((ex) -> assertThat(ex.getProperty().getName()).hasToString("redlock.restart-quarantine"));
    }

    @Test
    void propertiesOutsideTheNamespaceAreIgnored() {
        RedlockProperties properties = bind(Map.of("spring.data.redis.url", "redis://elsewhere:6379", "redlock-x.nodes", "redis://y"));
        assertThat(properties.getNodes()).isEmpty();
    }

    private static RedlockProperties bind(Map<String, String> values) {
        Binder binder = new Binder(new MapConfigurationPropertySource(values));
        return binder.bind("redlock", Bindable.of(RedlockProperties.class)).orElseGet(RedlockProperties::new);
    }

}
