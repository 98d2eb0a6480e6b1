package io.github.redlock.aop;

import java.time.Duration;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.ConfigurationFailures;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redlock.max-ttl} bounds the ttl of every annotated method, checked at start-up: a node that restarted
 * without its keys waits that long before it votes again, so no lock may outlive it.
 */
class RedlockedMaxTtlIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()));
    }

    @Test
    void anAnnotationTtlAboveMaxTtlStopsTheStartUp() {
        runner().withBean(Reports.class).run((context) -> {
            assertThat(context).hasFailed();
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("Reports.build()", "PT2M", "above redlock.max-ttl (PT1M)");
            assertThat(failure.getAction()).contains("autoExtend = true", "redlock.max-ttl");
        });
    }

    @Test
    void aDefaultTtlAboveMaxTtlStopsTheStartUpNamingTheMethod() {
        runner().withBean(DefaultReports.class).withPropertyValues("redlock.default-ttl=90s").run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("DefaultReports.build()", "PT1M30S", "above redlock.max-ttl");
        });
    }

    @Test
    void aRaisedMaxTtlLetsTheMethodHoldItsLongerLock() {
        runner().withBean(Reports.class).withPropertyValues("redlock.max-ttl=5m").run((context) -> {
            assertThat(context).hasNotFailed();
            Duration validity = context.getBean(Reports.class).build();
            assertThat(validity).isGreaterThan(Duration.ofSeconds(100));
            assertThat(context.getBean(Redlock.class).tryAcquire("report", Duration.ofSeconds(1)))
                    .as("free again once the method returned").hasValueSatisfying(RedlockLease::release);
        });
    }

    @Test
    void aMaxTtlBelowOneMillisecondStopsTheStartUpNamingTheProperty() {
        runner().withPropertyValues("redlock.max-ttl=0s").run((context) -> assertThat(
                ConfigurationFailures.findProperty(context.getStartupFailure()).getName()).isEqualTo("redlock.max-ttl"));
    }

    static class Reports {

        private Redlock redlock;

        @org.springframework.beans.factory.annotation.Autowired
        void setRedlock(Redlock redlock) {
            this.redlock = redlock;
        }

        /** Returns the remaining validity of the lock it runs under. */
        @Redlocked(key = "report", ttl = "2m")
        public Duration build() {
            return this.redlock.heldLeases().stream().filter((lease) -> lease.key().equals("report")).findFirst()
                    .map(RedlockLease::remainingValidity).orElse(Duration.ZERO);
        }

    }

    static class DefaultReports {

        @Redlocked(key = "default-report")
        public void build() {
        }

    }

}
