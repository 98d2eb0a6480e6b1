package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.ConfigurationFailures;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.core.RedlockLease;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedlockedAspectIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>(
                List.of("orders.region=eu", "redlock.default-ttl=20s", "redlock.node-timeout=1s"));
        for (int i = 0; i < 3; i++) {
            properties.add("redlock.nodes[" + i + "]=" + redis.node(i).uri());
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    private void withService(ServiceTest test) {
        runner().withUserConfiguration(OrderServiceConfiguration.class).run((context) -> {
            assertThat(context).hasNotFailed();
            test.run(context.getBean(OrderService.class), context.getBean(Redlock.class));
        });
    }

    @Test
    void keyIsEvaluatedFromAnArgumentByName() {
        withService((service, redlock) -> assertThat(service.pay(new Order("42"))).isEqualTo("order:42 held"));
    }

    @Test
    void keyIsEvaluatedFromArgumentsByPosition() {
        withService((service, redlock) -> assertThat(service.reserve("sku-7", 3)).isEqualTo("stock:sku-7:3 held"));
    }

    @Test
    void keyIsEvaluatedWithPlaceholdersTheRootObjectAlongsideBeans() {
        withService((service, redlock) -> assertThat(service.regional()).isEqualTo("eu:regional:EU held"));
    }

    @Test
    void nullKeyPartFailsWithAMessageThatPointsAtTheTemplateOfTheMethod() {
        withService((service, redlock) -> assertThatIllegalArgumentException().isThrownBy(() -> service.pay(new Order(null)))
                .withMessageContaining("'order:#{#order.id}'").withMessageContaining("OrderService.pay(Order)")
                .withMessageContaining("#{#order.id} evaluated to null"));
    }

    @Test
    void methodWhoseKeyPartIsNullDoesNotRun() {
        withService((service, redlock) -> {
            assertThatIllegalArgumentException().isThrownBy(() -> service.pay(new Order(null)));
            assertThat(service.calls).isZero();
        });
    }

    @Test
    void heldLockThrowsOrSkipsAsConfigured() {
        withService((service, redlock) -> {
            RedlockLease other = redlock.acquire("order:42", Duration.ofSeconds(10), Duration.ZERO);
            assertThatExceptionOfType(RedlockAcquisitionException.class).isThrownBy(() -> service.pay(new Order("42")))
                    .withMessageContaining("'order:42'").withMessageContaining("quorum is 2");
            RedlockLease job = redlock.acquire("settlement", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(service.settle()).isNull();
            assertThat(service.settleOptionally()).isEmpty();
            assertThat(service.calls).isZero();
            other.release();
            job.release();
            assertThat(service.settle()).isEqualTo("settled");
            assertThat(service.settleOptionally()).contains("settled");
        });
    }

    @Test
    void lockIsReleasedWhenTheMethodReturns() {
        withService((service, redlock) -> {
            service.pay(new Order("1"));
            assertThat(redlock.tryAcquire("order:1", Duration.ofSeconds(1))).isPresent();
        });
    }

    @Test
    void lockIsReleasedWhenTheMethodThrows() {
        withService((service, redlock) -> {
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.fail("2"));
            assertThat(redlock.tryAcquire("order:2", Duration.ofSeconds(1))).isPresent();
        });
    }

    @Test
    void nestedCallsForTheSameKeyOnOneThreadAreReentrant() {
        withService((service, redlock) -> assertThat(service.outer("9")).isEqualTo("outer(inner order:9 held)"));
    }

    @Test
    void completionStageHoldsTheLockUntilItCompletes() throws Exception {
        withService((service, redlock) -> {
            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<String> result = service.later("5", done);
            assertThat(redlock.tryAcquire("order:5", Duration.ofSeconds(1))).isEmpty();
            done.complete("ok");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
            awaitFree(redlock, "order:5");
        });
    }

    @Test
    void monoIsLockedFromSubscriptionUntilItTerminates() {
        withService((service, redlock) -> {
            Mono<String> mono = service.reactive("6");
            assertThat(redlock.tryAcquire("order:6", Duration.ofSeconds(1)).map(RedlockLease::release)).contains(true);
            assertThat(mono.block(Duration.ofSeconds(5))).isEqualTo("order:6 held");
            awaitFree(redlock, "order:6");
            RedlockLease other = redlock.acquire("order:6", Duration.ofSeconds(10), Duration.ZERO);
            assertThatExceptionOfType(RedlockAcquisitionException.class)
                    .isThrownBy(() -> service.reactive("6").block(Duration.ofSeconds(5)));
            other.release();
        });
    }

    @Test
    void fluxIsLockedFromSubscriptionUntilItTerminates() {
        withService((service, redlock) -> {
            assertThat(service.stream("7").collectList().block(Duration.ofSeconds(5))).containsExactly("order:7 held", "done");
            awaitFree(redlock, "order:7");
        });
    }

    @Test
    void emptyKeyFailsNamingTheTemplate() {
        withService((service, redlock) -> assertThatIllegalArgumentException().isThrownBy(() -> service.named(""))
                .withMessageContaining("'#{#name}'").withMessageContaining("evaluated to an empty key"));
    }

    @Test
    void methodWhoseKeyIsEmptyDoesNotRun() {
        withService((service, redlock) -> {
            assertThatIllegalArgumentException().isThrownBy(() -> service.named(""));
            assertThat(service.calls).isZero();
        });
    }

    @Test
    void leaseThatExpiresWhileTheMethodRunsIsCountedAsLost() {
        runner().withUserConfiguration(OrderServiceConfiguration.class)
                .withBean(io.micrometer.core.instrument.simple.SimpleMeterRegistry.class)
                .withConfiguration(AutoConfigurations.of(io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration.class))
                .run((context) -> {
                    context.getBean(OrderService.class).slow();
                    assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class).get("redlock.lost")
                            .tag("lock", "slow").counter().count()).isEqualTo(1);
                });
    }

    @Test
    void badAnnotationsStopTheStartUpNamingTheMethod() {
        runner().withUserConfiguration(BadDurationConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("ttl 'ten seconds'", "BadDuration.work()");
        });
        runner().withUserConfiguration(SkipPrimitiveConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("onFailure = SKIP", "SkipPrimitive.count()", "int");
            assertThat(failure.getAction()).contains("OnFailure.THROW");
        });
        runner().withUserConfiguration(BadTemplateConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("key 'order:#{#id'", "BadTemplate.work(String)");
        });
    }

    private static void awaitFree(Redlock redlock, String key) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<RedlockLease> lease = redlock.tryAcquire(key, Duration.ofSeconds(1));
            if (lease.isPresent()) {
                lease.get().release();
                return;
            }
        }
        throw new AssertionError(key + " was not released");
    }


    @FunctionalInterface
    interface ServiceTest {

        void run(OrderService service, Redlock redlock) throws Exception;

    }

    record Order(String id) {
    }

    static class OrderService {

        @Autowired
        Redlock redlock;

        @Autowired
        ObjectProvider<OrderService> self; // the proxy, for a nested call through the aspect

        int calls;

        @Redlocked(key = "order:#{#order.id}", ttl = "10s")
        public String pay(Order order) {
            this.calls++;
            return held("order:" + order.id());
        }

        @Redlocked(key = "stock:#{#p0}:#{#a1}", ttl = "PT10S", waitTime = "1s")
        public String reserve(String sku, int quantity) {
            return held("stock:" + sku + ":" + quantity);
        }

        @Redlocked(key = "${orders.region}:#{#root.methodName}:#{@regionCode}")
        public String regional() {
            return held("eu:regional:EU");
        }

        @Redlocked(key = "order:#{#id}")
        public void fail(String id) {
            throw new IllegalStateException("boom");
        }

        @Redlocked(key = "order:#{#id}")
        public String outer(String id) {
            return "outer(" + this.self.getObject().inner(id) + ")";
        }

        @Redlocked(key = "order:#{#id}", waitTime = "0s")
        public String inner(String id) {
            return "inner " + held("order:" + id);
        }

        @Redlocked(key = "settlement", onFailure = OnFailure.SKIP)
        public String settle() {
            this.calls++;
            return "settled";
        }

        @Redlocked(key = "settlement", onFailure = OnFailure.SKIP)
        public Optional<String> settleOptionally() {
            this.calls++;
            return Optional.of("settled");
        }

        @Redlocked(key = "order:#{#id}")
        public CompletableFuture<String> later(String id, CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

        @Redlocked(key = "order:#{#id}")
        public Mono<String> reactive(String id) {
            return Mono.fromCallable(() -> held("order:" + id));
        }

        @Redlocked(key = "order:#{#id}")
        public reactor.core.publisher.Flux<String> stream(String id) {
            return reactor.core.publisher.Flux.defer(() -> reactor.core.publisher.Flux.just(held("order:" + id), "done"));
        }

        @Redlocked(key = "#{#name}")
        public void named(String name) {
            this.calls++;
        }

        @Redlocked(key = "slow", ttl = "100ms")
        public void slow() throws InterruptedException {
            Thread.sleep(300); // longer than the ttl: the lease runs out while this works
        }

        /** Proves from inside the method that the lock on the key is held. */
        private String held(String key) {
            Optional<RedlockLease> free = this.redlock.tryAcquire(key, Duration.ofSeconds(1));
            free.ifPresent(RedlockLease::release);
            return free.isEmpty() ? key + " held" : key + " NOT held";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class OrderServiceConfiguration {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        String regionCode() {
            return "EU";
        }

    }

    static class BadDuration {

        @Redlocked(key = "k", ttl = "ten seconds")
        public void work() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadDurationConfiguration {

        @Bean
        BadDuration badDuration() {
            return new BadDuration();
        }

    }

    static class SkipPrimitive {

        @Redlocked(key = "k", onFailure = OnFailure.SKIP)
        public int count() {
            return 1;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class SkipPrimitiveConfiguration {

        @Bean
        SkipPrimitive skipPrimitive() {
            return new SkipPrimitive();
        }

    }

    static class BadTemplate {

        @Redlocked(key = "order:#{#id")
        public void work(String id) {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadTemplateConfiguration {

        @Bean
        BadTemplate badTemplate() {
            return new BadTemplate();
        }

    }

}
