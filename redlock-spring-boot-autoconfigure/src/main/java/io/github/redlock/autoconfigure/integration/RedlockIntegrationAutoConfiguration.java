package io.github.redlock.autoconfigure.integration;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.integration.RedlockLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a Spring Integration {@link LockRegistry} backed by the
 * {@link Redlock} (a {@link RedlockLockRegistry}), when Spring Integration is on the classpath and the
 * application defines no lock registry of its own; a {@code LockRegistryLeaderInitiator} built on it elects a
 * leader across instances.
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(Redlock.class)
public final class RedlockIntegrationAutoConfiguration {

    RedlockIntegrationAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    RedlockLockRegistry redlockLockRegistry(Redlock redlock) {
        return new RedlockLockRegistry(redlock);
    }

}
