package io.github.redlock.aop;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hazard: a callback that throws (a user's {@code MeterFilter} under the starter's meters, or a
 * {@link RedlockedObserver} of the application) skips the release of a lock, or turns a method that worked
 * into a failure. Every call here must run its method, return its result and leave no lock behind, on three
 * real nodes.
 */
class RedlockedObserverFailureIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    /** The meters the aspect records itself; the core's meters are the core's to guard. */
    private static final Set<String> ASPECT_METERS = Set.of("redlock.acquire", "redlock.held", "redlock.lost");

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockMetricsAutoConfiguration.class))
                .withUserConfiguration(LedgerConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.node-timeout=1s");
    }

    @Test
    void aMeterFilterThatThrowsNeitherFailsTheMethodNorLeaksItsLock() {
        runner().withUserConfiguration(ThrowingMeterFilterConfiguration.class).run(this::assertEveryCallRunsWithoutLeakingItsLock);
    }

    @Test
    void anObserverThatThrowsFromEachCallbackNeitherFailsTheMethodNorLeaksItsLock() {
        runner().withBean(SimpleMeterRegistry.class).withBean(ThrowingObserver.class).run((context) -> {
            assertEveryCallRunsWithoutLeakingItsLock(context);
            assertThat(context.getBean(ThrowingObserver.class).calls.get()).as("acquisitions seen by the throwing observer")
                    .isEqualTo(5);
        });
    }

    @Test
    void theMetersStillCountBesideAnObserverThatThrowsFromEachCallback() {
        runner().withBean(SimpleMeterRegistry.class).withBean(ThrowingObserver.class).run((context) -> {
            assertEveryCallRunsWithoutLeakingItsLock(context);
            assertThat(context.getBean(MeterRegistry.class).get("redlock.acquire").tag("lock", "ledger:#{#id}")
                    .timer().count()).as("the meters are told beside the observer that throws").isEqualTo(2);
        });
    }

    private void assertEveryCallRunsWithoutLeakingItsLock(AssertableApplicationContext context) throws Exception {
        assertThat(context).hasNotFailed();
        Ledger ledger = context.getBean(Ledger.class);
        Redlock redlock = context.getBean(Redlock.class);
        try (NodeKeys keys = new NodeKeys(redis.uris())) {
            assertThat(ledger.post("1")).isEqualTo("posted 1");
            keys.awaitGone("redlock:ledger:1", Duration.ofSeconds(2)); // a quorum answered the release; the rest follow
            assertThat(ledger.post("1")).as("a second call gets the lock").isEqualTo("posted 1");

            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<String> later = ledger.postLater("2", done);
            assertThat(keys.holding("redlock:ledger-later:2")).as("held while the result is pending").isGreaterThanOrEqualTo(2);
            done.complete("posted later");
            assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo("posted later");
            keys.awaitGone("redlock:ledger-later:2", Duration.ofSeconds(5));

            assertThat(ledger.postAfterTheLockRanOut()).isEqualTo("posted late"); // its lock is lost: lost() is told
            assertThat(redlock.heldLeases()).as("leases this instance never released").isEmpty();
            assertThat(ledger.postAfterTheLockRanOut()).isEqualTo("posted late");
            assertThat(redlock.heldLeases()).isEmpty();
        }
    }

    static class Ledger {

        @Redlocked(key = "ledger:#{#id}", ttl = "10s")
        public String post(String id) {
            return "posted " + id;
        }

        @Redlocked(key = "ledger-later:#{#id}", ttl = "10s")
        public CompletableFuture<String> postLater(String id, CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

        @Redlocked(key = "ledger-late", ttl = "100ms")
        public String postAfterTheLockRanOut() throws InterruptedException {
            Thread.sleep(300); // longer than the ttl: the lease is lost while this works
            return "posted late";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class LedgerConfiguration {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ThrowingMeterFilterConfiguration {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            registry.config().meterFilter(new MeterFilter() {

                @Override
                public Meter.Id map(Meter.Id id) {
                    if (ASPECT_METERS.contains(id.getName())) {
                        throw new IllegalStateException("a broken meter filter, on " + id.getName());
                    }
                    return id;
                }

            });
            return registry;
        }

    }

    /**
     * Throws from {@code acquisition} for {@code ledger:#{#id}}, from the release callback of every other lock,
     * and from {@code lost}.
     */
    static class ThrowingObserver implements RedlockedObserver {

        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Runnable acquisition(String lock, boolean acquired, long nanos) {
            this.calls.incrementAndGet();
            if (lock.equals("ledger:#{#id}")) {
                throw new IllegalStateException("a broken observer, on the acquisition of " + lock);
            }
            return () -> {
                throw new IllegalStateException("a broken observer, on the release of " + lock);
            };
        }

        @Override
        public void lost(String lock) {
            throw new IllegalStateException("a broken observer, on the loss of " + lock);
        }

    }

}
