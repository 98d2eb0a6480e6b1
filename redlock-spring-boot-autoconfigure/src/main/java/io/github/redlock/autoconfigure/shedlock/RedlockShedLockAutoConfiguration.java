package io.github.redlock.autoconfigure.shedlock;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.shedlock.RedlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a ShedLock {@link LockProvider} backed by the
 * {@link Redlock}, when ShedLock is on the classpath and the application defines no lock provider of its own.
 * {@code @EnableSchedulerLock} stays the application's to declare.
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(Redlock.class)
public final class RedlockShedLockAutoConfiguration {

    RedlockShedLockAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    RedlockLockProvider redlockLockProvider(Redlock redlock) {
        return new RedlockLockProvider(redlock);
    }

}
