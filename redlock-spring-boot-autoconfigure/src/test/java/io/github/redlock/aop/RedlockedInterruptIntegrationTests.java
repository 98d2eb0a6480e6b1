package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.Counter;
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

/**
 * The hazard: {@code interruptOnLoss} interrupts the thread that runs the method when the lock is lost, and
 * that interrupt reaches the thread after the method returned, where it belongs to someone else's code (the
 * next task of a pool, the caller's next wait). Whenever the loss comes (while the method runs, as it
 * returns, or later, while a nested asynchronous call still holds the lock), the caller's thread must not be
 * interrupted once the annotated call is over. On three real nodes; each method runs on a thread of its own,
 * which then reports its interrupt status.
 */
class RedlockedInterruptIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withUserConfiguration(WorkersConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()));
    }

    @Test
    void theInterruptForALossWhileTheMethodRanDoesNotOutliveTheMethod() {
        runner().run((context) -> {
            Workers workers = context.getBean(Workers.class);
            List<String> report = onThreadOfItsOwn(() -> workers.untilInterrupted(Duration.ofSeconds(5)) + ", then "
                    + interruptStatus());
            assertThat(report).containsExactly("interrupted by the loss, then not interrupted");
        });
    }

    @Test
    void theInterruptForALossDoesNotOutliveAMethodThatThrowsWithTheInterruptRestored() {
        runner().run((context) -> {
            Workers workers = context.getBean(Workers.class);
            List<String> report = onThreadOfItsOwn(() -> {
                try {
                    workers.failWhenInterrupted();
                    return "returned";
                }
                catch (IllegalStateException ex) {
                    return ex.getMessage() + ", then " + interruptStatus();
                }
            });
            assertThat(report).containsExactly("stopped by the loss, then not interrupted");
        });
    }

    @Test
    void aLossAfterTheMethodReturnedWhileANestedAsynchronousCallHoldsTheLockInterruptsNoOne() {
        runner().run((context) -> {
            Workers workers = context.getBean(Workers.class);
            Counter lost = context.getBean(MeterRegistry.class).counter("redlock.lost", "lock", "batch");
            CompletableFuture<String> done = new CompletableFuture<>();
            CountDownLatch lossSeen = new CountDownLatch(1);
            List<String> report = new CopyOnWriteArrayList<>();
            Thread caller = new Thread(() -> {
                report.add(workers.startBatch(done));
                try {
                    // An interrupt that arrives while the thread waits here ends the wait at once.
                    report.add(lossSeen.await(30, TimeUnit.SECONDS) ? "waited, " + interruptStatus() : "the test gave up");
                }
                catch (InterruptedException ex) {
                    report.add("interrupted while waiting");
                }
            });
            caller.start();
            NodeKeys.await(() -> !report.isEmpty(), Duration.ofSeconds(10), () -> "the batch did not start");
            for (int i = 0; i < 3; i++) {
                redis.node(i).pause(); // the nested call's lock can no longer be extended: it is lost
            }
            NodeKeys.await(() -> lost.count() == 1, Duration.ofSeconds(10), () -> "the lock was not lost");
            lossSeen.countDown();
            caller.join(10_000);
            done.complete("done");
            assertThat(report).containsExactly("started", "waited, not interrupted");
        });
    }

    @Test
    void noInterruptReachesTheCallerWhenTheLossCoincidesWithTheReturn() {
        runner().run((context) -> {
            Workers workers = context.getBean(Workers.class);
            List<String> report = onThreadOfItsOwn(() -> {
                // The 50 ms lease is lost about 47 ms after its acquisition; the work lasts from 30 to 70 ms, so the
                // loss comes during the work, as it returns, or not at all before the release.
                List<String> interruptedAfter = new ArrayList<>();
                int interruptedDuring = 0;
                for (int i = 0; i < 80; i++) {
                    Duration work = Duration.ofMillis(30).plusNanos(i * 500_000L);
                    if (workers.briefly(work)) {
                        interruptedDuring++;
                    }
                    if (Thread.interrupted()) {
                        interruptedAfter.add(work.toString());
                    }
                }
                return "interrupted during the work " + ((interruptedDuring > 0) ? "at times" : "never")
                        + ", after it " + ((interruptedAfter.isEmpty()) ? "never" : interruptedAfter);
            });
            assertThat(report).containsExactly("interrupted during the work at times, after it never");
        });
    }

    /** Runs the work on a new thread and returns what it reported; fails if it does not end within 60 s. */
    private static List<String> onThreadOfItsOwn(Work work) throws InterruptedException {
        List<String> report = new CopyOnWriteArrayList<>();
        Thread thread = new Thread(() -> {
            try {
                report.add(work.run());
            }
            catch (Exception ex) {
                report.add("failed: " + ex);
            }
        });
        thread.start();
        thread.join(60_000);
        assertThat(thread.isAlive()).as("the work is still running").isFalse();
        return report;
    }

    private static String interruptStatus() {
        return Thread.currentThread().isInterrupted() ? "STILL INTERRUPTED" : "not interrupted";
    }

    @FunctionalInterface
    interface Work {

        String run() throws Exception;

    }

    static class Workers {

        @Autowired
        ObjectProvider<Workers> self; // the proxy, so that the nested call goes through the aspect

        /** Works until interrupted, the way a worker loop does, and returns without clearing the interrupt. */
        // A slow node is retried: the default 50 ms node timeout stays, so that the 200 ms lease is still meaningful.
        @Redlocked(key = "until-interrupted", ttl = "200ms", waitTime = "5s", interruptOnLoss = true)
        public String untilInterrupted(Duration bound) {
            long deadline = System.nanoTime() + bound.toNanos();
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(deadline - System.nanoTime());
            }
            return Thread.currentThread().isInterrupted() ? "interrupted by the loss" : "not interrupted by the loss";
        }

        /** Waits to be interrupted, then restores the interrupt and throws, as the usual idiom does. */
        @Redlocked(key = "fail-when-interrupted", ttl = "200ms", waitTime = "5s", interruptOnLoss = true) // as above
        public void failWhenInterrupted() {
            try {
                Thread.sleep(5_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("stopped by the loss", ex);
            }
            throw new IllegalStateException("not stopped by the loss");
        }

        /** Parks for the duration or until interrupted, and returns whether it was interrupted, leaving the status set. */
        @Redlocked(key = "briefly", ttl = "50ms", waitTime = "5s", interruptOnLoss = true) // a slow node is retried
        public boolean briefly(Duration work) {
            long deadline = System.nanoTime() + work.toNanos();
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(deadline - System.nanoTime());
            }
            return Thread.currentThread().isInterrupted();
        }

        @Redlocked(key = "batch", ttl = "500ms", autoExtend = true, interruptOnLoss = true)
        public String startBatch(CompletableFuture<String> done) {
            this.self.getObject().runBatch(done);
            return "started";
        }

        @Redlocked(key = "batch")
        public CompletableFuture<String> runBatch(CompletableFuture<String> done) {
            return done.thenApply((value) -> value);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class WorkersConfiguration {

        @Bean
        Workers workers() {
            return new Workers();
        }

    }

}
