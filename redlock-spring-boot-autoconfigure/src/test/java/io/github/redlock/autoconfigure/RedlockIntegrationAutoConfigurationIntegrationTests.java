package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redlock.autoconfigure.integration.RedlockIntegrationAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.event.RedlockLeaseLostEvent;
import io.github.redlock.integration.RedlockLockRegistry;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Integration lock registry is there when Spring Integration is, and backs off for the
 * application's own; every lost lease is published as a {@link RedlockLeaseLostEvent}, and every observer
 * bean hears of the lock.
 */
class RedlockIntegrationAutoConfigurationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>(List.of("redlock.node-timeout=2s"));
        for (int i = 0; i < 3; i++) {
            properties.add("redlock.nodes[" + i + "]=" + redis.node(i).uri());
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockIntegrationAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    @Test
    void aRedlockLockRegistryIsConfiguredWhenSpringIntegrationIsPresent() {
        runner().run((context) -> assertThat(context).hasSingleBean(LockRegistry.class).hasSingleBean(RedlockLockRegistry.class));
    }

    @Test
    void itBacksOffForTheApplicationsOwnLockRegistry() {
        runner().withBean(DefaultLockRegistry.class)
                .run((context) -> assertThat(context).doesNotHaveBean(RedlockLockRegistry.class).hasSingleBean(DefaultLockRegistry.class));
    }

    @Test
    void itIsAbsentWithoutSpringIntegrationAndTheLockStillWorks() {
        runner().withClassLoader(new FilteredClassLoader(LockRegistry.class)).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RedlockLockRegistry.class);
            assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying(RedlockLease::release);
        });
    }

    @Test
    void everyLostLeaseIsPublishedAsAnEventOnAThreadOfItsOwn() {
        List<RedlockLeaseLostEvent> events = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        ApplicationListener<RedlockLeaseLostEvent> listener = (event) -> {
            threads.add(Thread.currentThread().getName());
            events.add(event);
        };
        runner().withBean("lostListener", ApplicationListener.class, () -> listener).run((context) -> {
            Redlock redlock = context.getBean(Redlock.class);
            RedlockLease lease = redlock.acquire("expiring", Duration.ofMillis(200), Duration.ZERO);
            lease.lost().get(5, TimeUnit.SECONDS);
            redlock.acquire("released", Duration.ofMillis(200), Duration.ZERO).release();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (events.isEmpty() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            Thread.sleep(300); // time for a wrong second event
            assertThat(events).singleElement().satisfies((event) -> {
                assertThat(event.getKey()).isEqualTo("expiring");
                assertThat(event.getLease()).isSameAs(lease);
                assertThat(event.getReason()).isEqualTo(lease.lostReason().orElseThrow());
            });
            assertThat(threads).containsExactly("redlock-lease-lost-events");
        });
    }

    @Test
    void theMetersAndTheApplicationsOwnObserverBothHearOfTheLock() {
        List<String> heard = new CopyOnWriteArrayList<>();
        RedlockObserver own = new RedlockObserver() {

            @Override
            public void released(boolean released, long nanos) {
                heard.add("released " + released);
            }

        };
        runner().withConfiguration(AutoConfigurations.of(RedlockMetricsAutoConfiguration.class)).withBean(SimpleMeterRegistry.class)
                .withBean("ownObserver", RedlockObserver.class, () -> own).run((context) -> {
                    context.getBean(Redlock.class).acquire("k", Duration.ofSeconds(5), Duration.ZERO).release();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (heard.isEmpty() && System.nanoTime() - deadline < 0) {
                        Thread.sleep(10); // the observer hears of the release as the caller does, maybe just after
                    }
                    assertThat(heard).containsExactly("released true");
                    assertThat(context.getBean(MeterRegistry.class).find("redlock.node.command").timers()).isNotEmpty();
                });
    }

}
