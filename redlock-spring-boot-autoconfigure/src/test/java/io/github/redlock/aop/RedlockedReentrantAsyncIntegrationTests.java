package io.github.redlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hazard: a synchronous {@code @Redlocked} method calls, on its own thread and for its own key, an
 * asynchronous or reactive one. The inner call re-enters (no second lock) and returns at once; if the outer
 * call then released, the inner work would run on unlocked. Each asynchronous result must keep the lock until
 * it completes, and a reactive result subscribed after the outer call released must lock for itself. Another
 * instance (a second {@link Redlock} on the same five nodes) checks who holds the key.
 */
class RedlockedReentrantAsyncIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> otherInstance = RedisClientExtension.of(redis, (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build());

    @RegisterExtension
    final RedisClientExtension<NodeKeys> keys = RedisClientExtension.of(redis, NodeKeys::new);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withUserConfiguration(ReportsConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.retry-delay=20ms");
    }

    @Test
    void anAsynchronousCallMadeUnderTheSameKeyKeepsTheLockAfterTheOuterCallReturnedUntilItCompletes() {
        runner().run((context) -> {
            Reports reports = context.getBean(Reports.class);
            CompletableFuture<String> done = new CompletableFuture<>();
            assertThat(reports.start("1", done)).isEqualTo("started");
            assertHeldElsewhereFor("report:1", Duration.ofSeconds(1));
            done.complete("rendered");
            this.keys.get().awaitGone("redlock:report:1", Duration.ofSeconds(5));
            assertFreeForAnotherInstance("report:1");
        });
    }

    @Test
    void aMonoSubscribedUnderTheSameKeyKeepsTheLockAfterTheOuterCallReturnedUntilItCompletes() {
        runner().run((context) -> {
            Reports reports = context.getBean(Reports.class);
            CompletableFuture<String> done = new CompletableFuture<>();
            assertThat(reports.startReactive("2", done)).isEqualTo("started");
            assertHeldElsewhereFor("report:2", Duration.ofSeconds(1));
            done.complete("rendered");
            this.keys.get().awaitGone("redlock:report:2", Duration.ofSeconds(5));
            assertFreeForAnotherInstance("report:2");
        });
    }

    @Test
    void aMonoMadeUnderTheSameKeyButSubscribedAfterTheOuterCallReleasedLocksForItself() throws Exception {
        runner().run((context) -> {
            Reports reports = context.getBean(Reports.class);
            CompletableFuture<String> done = new CompletableFuture<>();
            AtomicReference<Mono<String>> prepared = new AtomicReference<>();
            assertThat(reports.prepare("3", done, prepared)).isEqualTo("prepared");
            this.keys.get().awaitGone("redlock:report:3", Duration.ofSeconds(5)); // the outer call released
            CompletableFuture<String> result = prepared.get().toFuture();
            NodeKeys.await(() -> this.keys.get().holding("redlock:report:3") >= 3, Duration.ofSeconds(5),
                    () -> "the late subscription runs without the lock: " + this.keys.get().holding("redlock:report:3") + " node(s) hold it");
            assertHeldElsewhereFor("report:3", Duration.ofMillis(500));
            done.complete("rendered");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("rendered");
            this.keys.get().awaitGone("redlock:report:3", Duration.ofSeconds(5));
        });
    }

    /** Checks, every 100 ms for {@code period}, that a quorum of nodes holds the key and another instance cannot take it. */
    private void assertHeldElsewhereFor(String key, Duration period) throws InterruptedException {
        long end = System.nanoTime() + period.toNanos();
        do {
            assertThat(this.keys.get().holding("redlock:" + key)).as("nodes holding %s", key).isGreaterThanOrEqualTo(3);
            assertThat(this.otherInstance.get().tryAcquire(key, Duration.ofSeconds(5)).map(RedlockLease::release))
                    .as("another instance acquiring %s", key).isEmpty();
            Thread.sleep(100);
        }
        while (System.nanoTime() - end < 0);
    }

    private void assertFreeForAnotherInstance(String key) {
        assertThat(this.otherInstance.get().tryAcquire(key, Duration.ofSeconds(5)).map(RedlockLease::release)).contains(true);
    }

    static class Reports {

        @Autowired
        ObjectProvider<Reports> self; // the proxy, so that nested calls go through the aspect

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        public String start(String id, CompletableFuture<String> done) {
            this.self.getObject().render(id, done);
            return "started";
        }

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        public CompletableFuture<String> render(String id, CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        public String startReactive(String id, CompletableFuture<String> done) {
            this.self.getObject().renderReactive(id, done).subscribe();
            return "started";
        }

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        public String prepare(String id, CompletableFuture<String> done, AtomicReference<Mono<String>> prepared) {
            prepared.set(this.self.getObject().renderReactive(id, done));
            return "prepared";
        }

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        public Mono<String> renderReactive(String id, CompletableFuture<String> done) {
            return Mono.fromFuture(done, true);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfiguration {

        @Bean
        Reports reports() {
            return new Reports();
        }

    }

}
