package io.github.redlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hazard: the caller gives up on an asynchronous or reactive result (cancels the future, disposes the
 * subscription) and the lock stays behind, held until its ttl ran out, or with {@code autoExtend} renewed
 * until {@code maxHold}, while no one works under it. Cancelling must release at once, at any moment:
 * while the method's work runs, and while the acquisition is still under way. On five real nodes; the
 * auto-extended locks have a 1 s ttl, so a lock that is still being extended outlives it visibly.
 */
class RedlockedCancellationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<NodeKeys> keys = RedisClientExtension.of(redis, NodeKeys::new);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withUserConfiguration(ExportsConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.retry-delay=20ms",
                        "redlock.node-timeout=1s");
    }

    @Test
    void cancellingACompletableFutureResultReleasesTheLockAtOnce() {
        runner().run((context) -> {
            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<String> export = context.getBean(Exports.class).export("1", done);
            assertThat(this.keys.get().holding("redlock:export:1")).isGreaterThanOrEqualTo(3);
            export.cancel(true);
            assertReleasedForGood(context, "redlock:export:1");
            assertThat(done).as("the method's own work is not stopped by the cancel").isNotDone();
        });
    }

    @Test
    void disposingAMonoWhileItsBodyRunsReleasesTheLockAtOnce() {
        runner().run((context) -> {
            CountDownLatch started = new CountDownLatch(1);
            Disposable subscription = context.getBean(Exports.class).exportReactive("2", started).subscribe();
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(this.keys.get().holding("redlock:export:2")).isGreaterThanOrEqualTo(3);
            subscription.dispose();
            assertReleasedForGood(context, "redlock:export:2");
        });
    }

    @Test
    void disposingAMonoWhileItWaitsForTheLockLeavesNoLockBehindOnceTheHolderReleases() {
        runner().run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // Held by another client, so that the Mono's acquisition asks the nodes (behind a holder of its own
            // Redlock it would wait for that release without asking, and be handed nothing once disposed).
            try (Redlock other = Redlock.builder().nodes(redis.uris()).build()) {
                RedlockLease holder = other.acquire("export:3", Duration.ofSeconds(10), Duration.ZERO);
                long before = setCommands(meters);
                CountDownLatch started = new CountDownLatch(1);
                Disposable subscription = context.getBean(Exports.class).exportReactive("3", started).subscribe();
                NodeKeys.await(() -> setCommands(meters) >= before + 10, Duration.ofSeconds(5),
                        () -> "the Mono did not try twice to acquire");
                long failed = failedAcquisitions(meters);
                subscription.dispose();
                // Released at once: the dispose must have stopped the retries before it returned. Stopped only by the
                // interrupt of the thread that waits for the lock, a retry woken by this release took the lock for a
                // moment on two loaded cores (CI of stop 48); the cancel now stops the acquisition itself.
                holder.release();
                assertReleasedForGood(context, "redlock:export:3");
                // Within 3 s, well inside the method's 5 s wait time: ended by the dispose, not by running out of time.
                NodeKeys.await(() -> failedAcquisitions(meters) > failed, Duration.ofSeconds(3),
                        () -> "the disposed call's acquisition did not end within 3 s (its wait time is 5 s)");
                assertThat(started.getCount()).as("body runs").isOne();
            }
        });
    }

    @Test
    void disposingAMonoWhileItWaitsBehindALeaseOfItsOwnRedlockHandsItNothing() {
        runner().run((context) -> {
            Redlock redlock = context.getBean(Redlock.class);
            RedlockLease holder = redlock.acquire("export:5", Duration.ofSeconds(10), Duration.ZERO);
            CountDownLatch started = new CountDownLatch(1);
            Disposable subscription = context.getBean(Exports.class).exportReactive("5", started).subscribe();
            subscription.dispose();
            assertThat(holder.release()).isTrue();
            assertReleasedForGood(context, "redlock:export:5");
            assertThat(started.getCount()).as("body runs").isOne();
            assertThat(redlock.heldLeases()).isEmpty();
        });
    }

    @Test
    void aLeaseGrantedJustAsTheMonoIsDisposedIsReleasedForGood() {
        runner().run((context) -> {
            GatedObserver gate = context.getBean(GatedObserver.class);
            CountDownLatch started = new CountDownLatch(1);
            Disposable subscription = context.getBean(Exports.class).exportGated("4", started).subscribe();
            assertThat(gate.granted.await(10, TimeUnit.SECONDS)).isTrue(); // the lease exists, not yet handed on
            assertThat(this.keys.get().holding("redlock:export-gated:4")).isGreaterThanOrEqualTo(3);
            subscription.dispose();
            gate.proceed.countDown();
            assertReleasedForGood(context, "redlock:export-gated:4");
            assertThat(started.getCount()).as("body runs").isOne();
        });
    }

    @Test
    void cancellingAFluxReleasesTheLockAtOnce() {
        runner().run((context) -> {
            assertThat(context.getBean(Exports.class).exportLines("5").take(3).collectList().block(Duration.ofSeconds(10)))
                    .containsExactly("line 0", "line 1", "line 2"); // take(3) cancels the endless Flux
            assertReleasedForGood(context, "redlock:export-lines:5");
        });
    }

    /**
     * Checks that the key leaves every node within 2 s, that it stays away for longer than the 1 s ttl of the
     * auto-extended locks with no extension attempted meanwhile, and that this instance holds no lease.
     */
    private void assertReleasedForGood(AssertableApplicationContext context, String redisKey) throws InterruptedException {
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        this.keys.get().awaitGone(redisKey, Duration.ofSeconds(2));
        long extensions = extensions(meters);
        long end = System.nanoTime() + Duration.ofMillis(1_500).toNanos();
        do {
            assertThat(this.keys.get().holding(redisKey)).as("nodes holding %s after its release", redisKey).isZero();
            Thread.sleep(50);
        }
        while (System.nanoTime() - end < 0);
        assertThat(extensions(meters)).as("extensions after the release").isEqualTo(extensions);
        assertThat(context.getBean(Redlock.class).heldLeases()).as("leases not released").isEmpty();
    }

    private static long extensions(MeterRegistry meters) {
        return meters.find("redlock.extend").timers().stream().mapToLong(Timer::count).sum();
    }

    private static long failedAcquisitions(MeterRegistry meters) {
        return meters.find("redlock.acquire").tag("outcome", "failed").timers().stream().mapToLong(Timer::count).sum();
    }

    private static long setCommands(MeterRegistry meters) {
        return meters.find("redlock.node.command").tag("command", "set").timers().stream().mapToLong(Timer::count).sum();
    }

    static class Exports {

        @Redlocked(key = "export:#{#id}", ttl = "10s")
        public CompletableFuture<String> export(String id, CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

        @Redlocked(key = "export:#{#id}", ttl = "1s", waitTime = "5s", autoExtend = true)
        public Mono<String> exportReactive(String id, CountDownLatch started) {
            return Mono.defer(() -> {
                started.countDown();
                return Mono.never();
            });
        }

        @Redlocked(key = "export-gated:#{#id}", ttl = "1s", autoExtend = true)
        public Mono<String> exportGated(String id, CountDownLatch started) {
            return exportReactive(id, started); // a self-call: not through the aspect again
        }

        @Redlocked(key = "export-lines:#{#id}", ttl = "1s", autoExtend = true)
        public Flux<String> exportLines(String id) {
            return Flux.interval(Duration.ofMillis(20)).map((line) -> "line " + line);
        }

    }

    /**
     * Holds up the acquisition of {@code export-gated:…} after the lease was granted and before the aspect hands
     * it on, until the test lets it go: a slow moment that a subscriber's cancel can fall into.
     */
    static class GatedObserver implements RedlockedObserver {

        final CountDownLatch granted = new CountDownLatch(1);

        final CountDownLatch proceed = new CountDownLatch(1);

        @Override
        public Runnable acquisition(String lock, boolean acquired, long nanos) {
            if (acquired && lock.startsWith("export-gated:")) {
                this.granted.countDown();
                awaitUninterruptibly(this.proceed);
            }
            return null;
        }

        @Override
        public void lost(String lock) {
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            try {
                while (latch.getCount() > 0 && System.nanoTime() - deadline < 0) {
                    try {
                        latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    }
                    catch (InterruptedException ex) {
                        interrupted = true; // the cancel interrupts this thread; keep holding up the lease
                    }
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ExportsConfiguration {

        @Bean
        Exports exports() {
            return new Exports();
        }

        @Bean
        GatedObserver gatedObserver() {
            return new GatedObserver();
        }

    }

}
