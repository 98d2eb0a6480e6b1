package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.ConfigurationFailures;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @Redlocked} read and write modes, automatic extension, loss and interruption, on five real nodes.
 */
class RedlockedModesIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.retry-delay=20ms");
    }

    private void withService(ServiceTest test) {
        runner().withUserConfiguration(PriceServiceConfiguration.class).run((context) -> {
            assertThat(context).hasNotFailed();
            test.run(context.getBean(PriceService.class), context.getBean(Redlock.class), context.getBean(MeterRegistry.class));
        });
    }

    @Test
    void readersShareTheLock() throws Exception {
        // Fails unless the three readers are inside at once, and each one returns.
        withService((service, redlock, meters) -> whileThreeReadersHold(service, () -> {
        }));
    }

    @Test
    void readersKeepAWriterOutUntilTheyLeave() throws Exception {
        withService((service, redlock, meters) -> {
            whileThreeReadersHold(service, () -> assertThat(redlock.tryAcquireWrite("prices:eu", Duration.ofSeconds(5))).isEmpty());
            assertThat(service.replace("eu")).isEqualTo("replaced while no reader held");
        });
    }

    @Test
    void theExclusiveLockOfTheKeyIsSeparateFromItsReadLock() throws Exception {
        withService((service, redlock, meters) -> whileThreeReadersHold(service,
                () -> assertThat(redlock.tryAcquire("prices:eu", Duration.ofSeconds(5)).map(RedlockLease::release))
                        .as("the exclusive lock of the key is separate").contains(true)));
    }

    @Test
    void aWriterKeepsReadersOut() throws Exception {
        withService((service, redlock, meters) -> {
            RedlockLease writer = redlock.acquireWrite("prices:eu", Duration.ofSeconds(5), Duration.ZERO);
            assertThat(service.readOrSkip("eu")).isNull(); // SKIP while a writer holds
            writer.release();
            assertThat(service.readOrSkip("eu")).isEqualTo("read");
        });
    }

    /** Runs {@code whileHeld} while three readers of {@code prices:eu} are inside at once, then lets them return. */
    private static void whileThreeReadersHold(PriceService service, WhileHeld whileHeld) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch inside = new CountDownLatch(3);
            CountDownLatch leave = new CountDownLatch(1);
            List<Future<String>> readers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                readers.add(pool.submit(() -> service.read("eu", inside, leave)));
            }
            assertThat(inside.await(10, TimeUnit.SECONDS)).as("three readers inside at once").isTrue();
            whileHeld.run();
            leave.countDown();
            for (Future<String> reader : readers) {
                assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo("read");
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWriteLockCoversNestedReadsButAReadLockIsNotUpgraded() {
        withService((service, redlock, meters) -> {
            assertThat(service.replaceThenRead("eu")).isEqualTo("replaced, then read");
            assertThatIllegalStateException().isThrownBy(() -> service.readThenReplace("eu"))
                    .withMessageContaining("PriceService.replace(String)").withMessageContaining("'prices:eu'")
                    .withMessageContaining("cannot be upgraded");
            assertThat(redlock.tryAcquireWrite("prices:eu", Duration.ofSeconds(1)).map(RedlockLease::release)).contains(true);
        });
    }

    @Test
    void autoExtensionKeepsA500MsLockForA3SecondMethodWithTheSameValueThenRemovesIt() throws Exception {
        withService((service, redlock, meters) -> {
            try (RedisClient client = RedisClient.create(); NodeWatcher watcher = new NodeWatcher(client, "redlock:rebuild")) {
                service.rebuild(Duration.ofSeconds(3));
                assertThat(watcher.stop()).as("values seen on node 0 while the method ran").hasSize(1)
                        .doesNotContainNull();
                assertThat(watcher.valueNow()).isNull();
            }
            assertThat(meters.find("redlock.lost").counter()).isNull();
            assertThat(meters.get("redlock.extend").tag("outcome", "extended").timer().count()).isGreaterThanOrEqualTo(5);
        });
    }

    @Test
    void aLostLockInterruptsTheMethodWhenAsked() throws Exception {
        withService((service, redlock, meters) -> {
            assertThat(loseTheLockOfTheInterruptibleMethod(service)).isEqualTo("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        });
    }

    @Test
    void aLostLockIsCounted() throws Exception {
        withService((service, redlock, meters) -> {
            loseTheLockOfTheInterruptibleMethod(service);
            assertThat(meters.get("redlock.lost").tag("lock", "interruptible").counter().count()).isEqualTo(1);
        });
    }

    /** Pauses every node while the interruptible method runs, and returns what the method returned. */
    private static String loseTheLockOfTheInterruptibleMethod(PriceService service) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<String> running = pool.submit(() -> service.interruptible());
            assertThat(service.started().await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 5; i++) {
                redis.node(i).pause();
            }
            try {
                return running.get(10, TimeUnit.SECONDS);
            }
            finally {
                for (int i = 0; i < 5; i++) {
                    redis.node(i).resume();
                }
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void maxHoldEndsTheExtension() {
        withService((service, redlock, meters) -> {
            service.overrun();
            assertThat(redlock.tryAcquire("overrun", Duration.ofSeconds(1)).map(RedlockLease::release)).contains(true);
        });
    }

    @Test
    void anOverrunOfTheMaxHoldIsCountedOnce() {
        withService((service, redlock, meters) -> {
            service.overrun();
            assertThat(meters.get("redlock.lost").tag("lock", "overrun").counter().count()).isEqualTo(1);
        });
    }

    @Test
    void asynchronousResultsAreExtendedUntilTheyComplete() throws Exception {
        withService((service, redlock, meters) -> {
            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<String> result = service.later(done);
            Thread.sleep(1_500); // three ttls
            assertThat(redlock.tryAcquire("later", Duration.ofSeconds(1))).isEmpty();
            done.complete("ok");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            Optional<RedlockLease> free = Optional.empty();
            while (free.isEmpty() && System.nanoTime() < deadline) {
                free = redlock.tryAcquire("later", Duration.ofSeconds(1));
            }
            assertThat(free).isPresent();
        });
    }

    @Test
    void inconsistentExtensionSettingsStopTheStartUp() {
        runner().withUserConfiguration(MaxHoldWithoutExtensionConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("maxHold without autoExtend", "MaxHoldWithoutExtension.work()");
        });
        runner().withUserConfiguration(InterruptAsyncConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("interruptOnLoss", "InterruptAsync.work()", "CompletableFuture");
        });
        runner().withUserConfiguration(BadMaxHoldConfiguration.class).run((context) -> {
            RedlockConfigurationException failure = ConfigurationFailures.find(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("maxHold 'forever'", "BadMaxHold.work()");
        });
    }

    @FunctionalInterface
    interface ServiceTest {

        void run(PriceService service, Redlock redlock, MeterRegistry meters) throws Exception;

    }

    @FunctionalInterface
    interface WhileHeld {

        void run() throws Exception;

    }

    /** Polls one node for a key's value every 50 ms, collecting the distinct values it sees. */
    static final class NodeWatcher implements AutoCloseable {

        private final StatefulRedisConnection<String, String> connection;

        private final String key;

        private final List<String> seen = new ArrayList<>();

        private final AtomicBoolean stop = new AtomicBoolean();

        private final Thread thread;

        NodeWatcher(RedisClient client, String key) {
            this.connection = client.connect(io.lettuce.core.RedisURI.create(redis.node(0).uri()));
            this.key = key;
            this.thread = new Thread(() -> {
                while (!this.stop.get()) {
                    String value = this.connection.sync().get(this.key);
                    if (value != null && !this.seen.contains(value)) {
                        this.seen.add(value);
                    }
                    try {
                        Thread.sleep(50);
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                }
            });
            this.thread.start();
        }

        List<String> stop() throws InterruptedException {
            this.stop.set(true);
            this.thread.join(5_000);
            return this.seen;
        }

        String valueNow() {
            return this.connection.sync().get(this.key);
        }

        @Override
        public void close() {
            this.stop.set(true);
            this.connection.close();
        }

    }

    static class PriceService {

        @Autowired
        Redlock redlock;

        @Autowired
        ObjectProvider<PriceService> self;

        private final CountDownLatch started = new CountDownLatch(1);

        /** Counted down when {@link #interruptible()} runs (a method, since the proxy's fields are not the target's). */
        public CountDownLatch started() {
            return this.started;
        }

        @Redlocked(key = "prices:#{#region}", mode = LockMode.READ, waitTime = "5s")
        public String read(String region, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return "read";
        }

        @Redlocked(key = "prices:#{#region}", mode = LockMode.READ, onFailure = OnFailure.SKIP)
        public String readOrSkip(String region) {
            return "read";
        }

        @Redlocked(key = "prices:#{#region}", mode = LockMode.WRITE, waitTime = "5s")
        public String replace(String region) {
            boolean noReader = this.redlock.tryAcquireRead("prices:" + region, Duration.ofSeconds(1)).map((lease) -> {
                lease.release();
                return false;
            }).orElse(true);
            return noReader ? "replaced while no reader held" : "replaced WHILE A READER HELD";
        }

        @Redlocked(key = "prices:#{#region}", mode = LockMode.WRITE)
        public String replaceThenRead(String region) {
            return "replaced, then " + this.self.getObject().readOrSkip(region);
        }

        @Redlocked(key = "prices:#{#region}", mode = LockMode.READ)
        public String readThenReplace(String region) {
            return this.self.getObject().replace(region);
        }

        @Redlocked(key = "rebuild", ttl = "500ms", autoExtend = true, maxHold = "1m")
        public void rebuild(Duration work) throws InterruptedException {
            Thread.sleep(work.toMillis());
        }

        @Redlocked(key = "interruptible", ttl = "500ms", autoExtend = true, interruptOnLoss = true)
        public String interruptible() {
            this.started.countDown();
            try {
                Thread.sleep(20_000);
                return "not interrupted";
            }
            catch (InterruptedException ex) {
                return "interrupted";
            }
        }

        @Redlocked(key = "overrun", ttl = "300ms", autoExtend = true, maxHold = "600ms")
        public void overrun() throws InterruptedException {
            Thread.sleep(1_500);
        }

        @Redlocked(key = "later", ttl = "500ms", autoExtend = true)
        public CompletableFuture<String> later(CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class PriceServiceConfiguration {

        @Bean
        PriceService priceService() {
            return new PriceService();
        }

    }

    static class MaxHoldWithoutExtension {

        @Redlocked(key = "k", maxHold = "1h")
        public void work() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class MaxHoldWithoutExtensionConfiguration {

        @Bean
        MaxHoldWithoutExtension maxHoldWithoutExtension() {
            return new MaxHoldWithoutExtension();
        }

    }

    static class InterruptAsync {

        @Redlocked(key = "k", autoExtend = true, interruptOnLoss = true)
        public CompletableFuture<String> work() {
            return CompletableFuture.completedFuture("done");
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class InterruptAsyncConfiguration {

        @Bean
        InterruptAsync interruptAsync() {
            return new InterruptAsync();
        }

    }

    static class BadMaxHold {

        @Redlocked(key = "k", autoExtend = true, maxHold = "forever")
        public void work() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadMaxHoldConfiguration {

        @Bean
        BadMaxHold badMaxHold() {
            return new BadMaxHold();
        }

    }

}
