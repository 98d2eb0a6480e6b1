package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.actuate.endpoint.RedlockEndpoint;
import io.github.redlock.actuate.endpoint.RedlockEndpointWebExtension;
import io.github.redlock.autoconfigure.endpoint.RedlockEndpointAutoConfiguration;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.metrics.RedlockMetrics;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Metrics, health and endpoint are optional: each backs off on its own, and the lock works without them.
 */
class RedlockOptionalPartsAutoConfigurationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>(List.of("management.endpoints.web.exposure.include=redlock"));
        for (int i = 0; i < 3; i++) {
            properties.add("redlock.nodes[" + i + "]=" + redis.node(i).uri());
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockMetricsAutoConfiguration.class,
                        RedlockHealthContributorAutoConfiguration.class, RedlockEndpointAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    @Test
    void everyOptionalPartIsThereWhenAMeterRegistryIsPresent() {
        runner().withBean(SimpleMeterRegistry.class).run((context) -> {
            assertThat(context).hasSingleBean(RedlockMetrics.class).hasSingleBean(RedlockHealthIndicator.class)
                    .hasSingleBean(RedlockEndpoint.class);
            context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5)).orElseThrow().release();
            assertThat(context.getBean(MeterRegistry.class).find("redlock.node.command").timers()).isNotEmpty();
        });
    }

    @Test
    void metricsBackOffWithoutAMeterRegistry() {
        runner().run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockMetrics.class));
    }

    @Test
    void theLockWorksWithoutMicrometerOrActuator() {
        runner().withClassLoader(new FilteredClassLoader(MeterRegistry.class, HealthIndicator.class, Endpoint.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RedlockMetrics.class)
                            .doesNotHaveBean(RedlockHealthIndicator.class).doesNotHaveBean(RedlockEndpoint.class);
                    assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).isPresent();
                });
    }

    @Test
    void healthCanBeSwitchedOff() {
        runner().withPropertyValues("management.health.redlock.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockHealthIndicator.class));
    }

    @Test
    void theRevokeOperationIsOffUnlessEnabled() {
        runner().run((context) -> assertThat(context).hasSingleBean(RedlockEndpoint.class)
                .doesNotHaveBean(RedlockEndpointWebExtension.class));
        runner().withPropertyValues("redlock.endpoint.revoke.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(RedlockEndpointWebExtension.class));
        runner().withPropertyValues("redlock.endpoint.revoke.enabled=true")
                .run((context) -> assertThat(context).hasSingleBean(RedlockEndpointWebExtension.class));
    }

    @Test
    void theRevokeOperationIsOnlyThereWhenTheEndpointIsExposedOverHttp() {
        runner().withPropertyValues("redlock.endpoint.revoke.enabled=true", "management.endpoints.web.exposure.include=health",
                "spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=redlock")
                .run((context) -> assertThat(context).hasSingleBean(RedlockEndpoint.class)
                        .doesNotHaveBean(RedlockEndpointWebExtension.class));
    }

    @Test
    void theEndpointIsOnlyThereWhenExposed() {
        runner().withPropertyValues("management.endpoints.web.exposure.include=health")
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockEndpoint.class));
    }

}
