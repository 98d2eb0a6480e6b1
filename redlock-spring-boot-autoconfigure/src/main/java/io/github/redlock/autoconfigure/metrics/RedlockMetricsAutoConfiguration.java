package io.github.redlock.autoconfigure.metrics;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.metrics.RedlockMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the Redlock meters, when Micrometer and a
 * {@link MeterRegistry} are present. Ordered after Boot's metrics auto-configurations by name, so that
 * Micrometer stays optional.
 */
@AutoConfiguration(before = RedlockAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class RedlockMetricsAutoConfiguration {

    RedlockMetricsAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    RedlockMetrics redlockMetrics(MeterRegistry registry) {
        return new RedlockMetrics(registry);
    }

    @Bean
    @ConditionalOnMissingBean(name = "redlockNodeMetrics")
    MeterBinder redlockNodeMetrics(ObjectProvider<Redlock> redlock) {
        return (registry) -> {
            Gauge.builder("redlock.nodes.quarantined", redlock, (lock) -> RedlockMetrics.quarantined(lock.getIfAvailable()))
                    .description("Nodes that answer but do not vote yet: restarted recently (see redlock.restart-quarantine)")
                    .register(registry);
            Gauge.builder("redlock.nodes.voting", redlock, (lock) -> RedlockMetrics.voting(lock.getIfAvailable()))
                    .description("Nodes that vote now: connected, checked, out of quarantine and confirmed; below redlock.quorum no lock"
                            + " can be taken")
                    .register(registry);
            Gauge.builder("redlock.quorum", redlock, (lock) -> RedlockMetrics.quorum(lock.getIfAvailable()))
                    .description("How many nodes must agree for a lock to be held: N/2 + 1")
                    .register(registry);
            Gauge.builder("redlock.releases.owed", redlock, (lock) -> RedlockMetrics.owedReleases(lock.getIfAvailable()))
                    .description("Releases owed to nodes that did not take them (unreachable): sent when a node answers again, "
                            + "unless their keys expired first; growth means a node unreachable for long")
                    .register(registry);
        };
    }

}
