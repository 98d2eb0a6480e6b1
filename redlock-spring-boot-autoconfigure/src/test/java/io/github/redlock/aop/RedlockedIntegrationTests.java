package io.github.redlock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application with the starter's auto-configuration, against five real Redis nodes.
 */
@SpringBootTest(classes = RedlockedIntegrationTests.Application.class)
class RedlockedIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @DynamicPropertySource
    static void nodes(DynamicPropertyRegistry registry) {
        registry.add("redlock.nodes", () -> String.join(",", redis.uris()));
        registry.add("redlock.retry-delay", () -> "20ms");
        // A skipped run must mean "the other run held the lock", never "every node was slower than 50 ms" on a busy
        // machine: the nodes get a patient timeout, well inside the 5 s and 10 s ttls.
        registry.add("redlock.node-timeout", () -> "2s");
    }

    @Autowired
    private Jobs jobs;

    private final ExecutorService pool = Executors.newFixedThreadPool(8);

    @AfterEach
    void shutdown() throws InterruptedException {
        this.pool.shutdownNow();
        assertThat(this.pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void concurrentCallsOfAnAnnotatedMethodKeepANonAtomicCounterExact() throws Exception {
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(this.pool.submit(() -> {
                for (int i = 0; i < 25; i++) {
                    this.jobs.increment();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(2, TimeUnit.MINUTES);
        }
        assertThat(this.jobs.counter()).isEqualTo(200);
        assertThat(this.jobs.overlaps()).isZero();
    }

    @Test
    void skipLetsExactlyOneOfTwoConcurrentScheduledRunsWork() throws Exception {
        for (int round = 0; round < 5; round++) {
            this.jobs.resetSettlements();
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<String>> runs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                runs.add(this.pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return this.jobs.settle();
                }));
            }
            List<String> results = new ArrayList<>();
            for (Future<String> run : runs) {
                results.add(run.get(30, TimeUnit.SECONDS));
            }
            assertThat(this.jobs.settlements()).as("settlements run in round %d", round).isEqualTo(1);
            assertThat(results).containsExactlyInAnyOrder("settled", null);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

    }

    /** Read through methods: the test holds the CGLIB proxy, whose own fields are unset. */
    static class Jobs {

        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger overlaps = new AtomicInteger();

        final AtomicInteger settlements = new AtomicInteger();

        int counter; // guarded only by the distributed lock

        public int counter() {
            return this.counter;
        }

        public int overlaps() {
            return this.overlaps.get();
        }

        public int settlements() {
            return this.settlements.get();
        }

        public void resetSettlements() {
            this.settlements.set(0);
        }

        @Redlocked(key = "counter", ttl = "5s", waitTime = "60s")
        public void increment() throws InterruptedException {
            if (this.inside.incrementAndGet() != 1) {
                this.overlaps.incrementAndGet();
            }
            int read = this.counter;
            Thread.sleep(1);
            this.counter = read + 1;
            this.inside.decrementAndGet();
        }

        @Redlocked(key = "nightly-settlement", ttl = "10s", onFailure = OnFailure.SKIP)
        public String settle() throws InterruptedException {
            this.settlements.incrementAndGet();
            Thread.sleep(300); // the other run arrives while this one works
            return "settled";
        }

    }

}
