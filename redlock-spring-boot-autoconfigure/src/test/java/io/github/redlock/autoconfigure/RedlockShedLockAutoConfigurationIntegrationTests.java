package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.autoconfigure.shedlock.RedlockShedLockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.shedlock.RedlockLockProvider;
import io.github.redlock.test.RedisNodesExtension;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ShedLock provider is there when ShedLock is, backs off for the application's own, and makes
 * {@code @SchedulerLock} methods hold a Redlock on real nodes.
 */
class RedlockShedLockAutoConfigurationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            properties.add("redlock.nodes[" + i + "]=" + redis.node(i).uri());
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockShedLockAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    @Test
    void aRedlockLockProviderIsConfiguredWhenShedLockIsPresent() {
        runner().run((context) -> assertThat(context).hasSingleBean(LockProvider.class).hasSingleBean(RedlockLockProvider.class));
    }

    @Test
    void itBacksOffForTheApplicationsOwnLockProvider() {
        LockProvider own = (configuration) -> java.util.Optional.empty();
        runner().withBean("ownLockProvider", LockProvider.class, () -> own)
                .run((context) -> assertThat(context).doesNotHaveBean(RedlockLockProvider.class).getBean(LockProvider.class).isSameAs(own));
    }

    @Test
    void itIsAbsentWithoutShedLockAndTheLockStillWorks() {
        runner().withClassLoader(new FilteredClassLoader(LockProvider.class)).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RedlockLockProvider.class);
            assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying(RedlockLease::release);
        });
    }

    @Test
    void aSchedulerLockMethodRunsUnderTheRedlockAndKeepsItForLockAtLeastFor() {
        runner().withUserConfiguration(ScheduledJobs.class).run((context) -> {
            Redlock redlock = context.getBean(Redlock.class);
            AtomicReference<Boolean> heldDuringTheRun = new AtomicReference<>();
            context.getBean(Job.class).run(() -> heldDuringTheRun.set(redlock.tryAcquire("shedlock:report", Duration.ofSeconds(5)).isEmpty()));
            assertThat(heldDuringTheRun).as("another holder was refused while the job ran").hasValue(true);
            assertThat(redlock.tryAcquire("shedlock:report", Duration.ofSeconds(5))).as("within lockAtLeastFor after the run").isEmpty();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSchedulerLock(defaultLockAtMostFor = "10s")
    static class ScheduledJobs {

        @Bean
        Job job() {
            return new Job();
        }

    }

    /** A job as an application writes it; ShedLock calls it through its lock. */
    static class Job {

        @SchedulerLock(name = "report", lockAtLeastFor = "5s")
        public void run(Runnable work) {
            work.run();
        }

    }

}
