package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @Redlocked(keys = …)}: a method that runs while it holds several keys at once, on five real nodes; another
 * instance (a second {@link Redlock}) checks who holds what.
 */
class RedlockedMultiKeyIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> otherInstance = RedisClientExtension.of(redis, (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build());

    @RegisterExtension
    final RedisClientExtension<NodeKeys> keys = RedisClientExtension.of(redis, NodeKeys::new);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withUserConfiguration(BankConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.retry-delay=20ms");
    }

    @Test
    void theMethodRunsWhileEveryKeyIsHeldAndTheyAreFreeAfterIt() {
        runner().run((context) -> {
            Bank bank = context.getBean(Bank.class);
            List<Integer> heldDuring = bank.transfer("1", "2", () -> List.of(this.keys.get().holding("redlock:acct:1"),
                    this.keys.get().holding("redlock:acct:2")));
            assertThat(heldDuring).allSatisfy((holding) -> assertThat(holding).isGreaterThanOrEqualTo(3));
            this.keys.get().awaitGone("redlock:acct:1", Duration.ofSeconds(5));
            this.keys.get().awaitGone("redlock:acct:2", Duration.ofSeconds(5));
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("redlock.acquire").tags("lock", "acct:#{#from},acct:#{#to}", "outcome", "acquired").timer().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void oneKeyHeldElsewhereKeepsTheMethodFromRunning() {
        runner().run((context) -> {
            Bank bank = context.getBean(Bank.class);
            RedlockLease elsewhere = this.otherInstance.get().acquire("acct:4", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(bank.tryTransfer("3", "4")).as("skipped").isNull();
            assertThat(this.keys.get().holding("redlock:acct:3")).as("nodes holding the free key of the set").isZero();
            elsewhere.release();
            assertThat(bank.tryTransfer("3", "4")).isEqualTo("done");
        });
    }

    @Test
    void transfersFromManyThreadsOverOverlappingAccountsNeverOverlapAndNeverDeadlock() {
        runner().run((context) -> {
            Bank bank = context.getBean(Bank.class);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> workers = new ArrayList<>();
            try {
                for (int t = 0; t < 8; t++) {
                    workers.add(pool.submit(() -> {
                        for (int n = 0; n < 20; n++) {
                            int from = ThreadLocalRandom.current().nextInt(4);
                            int to = (from + 1 + ThreadLocalRandom.current().nextInt(3)) % 4;
                            bank.transfer(Integer.toString(from), Integer.toString(to), null);
                        }
                        return null;
                    }));
                }
                for (Future<?> worker : workers) {
                    worker.get(120, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(bank.overlaps()).as("transfers that found an account in use").isZero();
            assertThat(bank.transfers()).isEqualTo(160);
        });
    }

    @Test
    void aNestedCallOnOneKeyOfTheHeldSetReentersIt() {
        runner().run((context) -> {
            Bank bank = context.getBean(Bank.class);
            assertThat(bank.transfer("5", "6", () -> bank.audit("6"))).isEqualTo("audited");
        });
    }

    @Test
    void aNestedCallForASetThatAddsKeysToAHeldOneIsRefusedClearly() {
        runner().run((context) -> {
            Bank bank = context.getBean(Bank.class);
            assertThatIllegalStateException().isThrownBy(() -> bank.transfer("7", "8", () -> bank.transfer("8", "9", null)))
                    .withMessageContaining("acct:8").withMessageContaining("Take the whole set in the outer call");
        });
    }

    @Test
    void bothKeyAndKeysStopTheStartUpNamingTheMethod() {
        runner().withUserConfiguration(BothConfiguration.class).run((context) -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("Both.run()").hasMessageContaining("sets both key and keys"));
    }

    @Test
    void keysWithAReadModeStopTheStartUpNamingTheMethod() {
        runner().withUserConfiguration(ReadKeysConfiguration.class).run((context) -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("ReadKeys.run()").hasMessageContaining("exclusive only"));
    }

    @Configuration(proxyBeanMethods = false)
    static class BankConfiguration {

        @Bean
        Bank bank() {
            return new Bank();
        }

    }

    static class Bank {

        final AtomicIntegerArray inUse = new AtomicIntegerArray(10);

        final AtomicInteger overlaps = new AtomicInteger();

        final AtomicInteger transfers = new AtomicInteger();

        public int overlaps() {
            return this.overlaps.get();
        }

        public int transfers() {
            return this.transfers.get();
        }

        @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" }, ttl = "5s", waitTime = "30s")
        public <T> T transfer(String from, String to, java.util.function.Supplier<T> during) {
            int a = Integer.parseInt(from);
            int b = Integer.parseInt(to);
            if (this.inUse.getAndIncrement(a) != 0 | this.inUse.getAndIncrement(b) != 0) {
                this.overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(1);
                return (during != null) ? during.get() : null;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
            finally {
                this.inUse.decrementAndGet(a);
                this.inUse.decrementAndGet(b);
                this.transfers.incrementAndGet();
            }
        }

        @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" }, ttl = "5s", waitTime = "0s",
                onFailure = io.github.redlock.annotation.OnFailure.SKIP)
        public String tryTransfer(String from, String to) {
            return "done";
        }

        @Redlocked(key = "acct:#{#account}", ttl = "5s", waitTime = "0s")
        public String audit(String account) {
            return "audited";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BothConfiguration {

        @Bean
        Both both() {
            return new Both();
        }

    }

    static class Both {

        @Redlocked(key = "a", keys = { "b", "c" })
        public void run() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ReadKeysConfiguration {

        @Bean
        ReadKeys readKeys() {
            return new ReadKeys();
        }

    }

    static class ReadKeys {

        @Redlocked(keys = { "b", "c" }, mode = LockMode.READ)
        public void run() {
        }

    }

}
