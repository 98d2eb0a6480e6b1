package io.github.redlock.autoconfigure.health;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.connection.RedlockConnectionFactories;
import io.github.redlock.core.Redlock;
import io.github.redlock.health.RedlockHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code redlock} health contributor.
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean({ Redlock.class, RedlockConnectionFactories.class })
@ConditionalOnEnabledHealthIndicator("redlock")
public final class RedlockHealthContributorAutoConfiguration {

    RedlockHealthContributorAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(name = "redlockHealthIndicator")
    RedlockHealthIndicator redlockHealthIndicator(Redlock redlock, RedlockConnectionFactories connections) {
        return new RedlockHealthIndicator(connections, redlock);
    }

}
