package io.github.redlock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's semantics over a quorum of five real nodes: one run at a time across instances,
 * {@code lockAtLeastFor} kept on the nodes after the task, {@code lockAtMostFor} freeing a dead holder's lock,
 * and the extension that {@code KeepAliveLockProvider} and {@code LockExtender} use.
 */
class RedlockLockProviderIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> first = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(1)).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> second = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(1)).build());

    @Test
    void aTaskRunsOnOneInstanceAtATimeAndTheOthersSkipIt() throws Exception {
        List<LockingTaskExecutor> instances = List.of(new DefaultLockingTaskExecutor(new RedlockLockProvider(this.first.get())),
                new DefaultLockingTaskExecutor(new RedlockLockProvider(this.second.get())));
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                LockingTaskExecutor instance = instances.get(i % 2);
                futures.add(threads.submit(() -> {
                    for (int n = 0; n < 30; n++) {
                        instance.executeWithLock((Runnable) () -> {
                            if (running.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            runs.incrementAndGet();
                            Thread.onSpinWait();
                            running.decrementAndGet();
                        }, new LockConfiguration(Instant.now(), "report", Duration.ofSeconds(10), Duration.ZERO));
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(overlaps).as("runs that overlapped another").hasValue(0);
        assertThat(runs.get()).as("runs of 240 attempts").isBetween(1, 239);
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterTheTaskEvenWhenItsProcessIsGone() throws Exception {
        RedlockLockProvider provider = new RedlockLockProvider(this.first.get());
        long start = System.nanoTime();
        SimpleLock lock = provider.lock(config("nightly", Duration.ofSeconds(30), Duration.ofMillis(1500))).orElseThrow();
        lock.unlock();
        this.first.get().close();
        for (int node = 0; node < 5; node++) {
            assertThat(pttl(node, "redlock:shedlock:nightly")).as("ttl on node " + node).isBetween(1L, 1500L);
        }
        RedlockLockProvider other = new RedlockLockProvider(this.second.get());
        assertThat(other.lock(config("nightly", Duration.ofSeconds(30), Duration.ZERO))).as("right after the unlock").isEmpty();
        Optional<SimpleLock> later = awaitLock(other, "nightly", Duration.ofSeconds(10));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the next lock").isGreaterThanOrEqualTo(1400);
        later.orElseThrow().unlock();
    }

    @Test
    void withoutLockAtLeastForTheUnlockFreesTheLockAtOnce() {
        RedlockLockProvider provider = new RedlockLockProvider(this.first.get());
        provider.lock(config("hourly", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow().unlock();
        RedlockLockProvider other = new RedlockLockProvider(this.second.get());
        assertThat(other.lock(config("hourly", Duration.ofSeconds(30), Duration.ZERO))).hasValueSatisfying(SimpleLock::unlock);
    }

    @Test
    void lockAtMostForFreesTheLockOfAHolderThatNeverUnlocked() {
        RedlockLockProvider provider = new RedlockLockProvider(this.first.get());
        long start = System.nanoTime();
        assertThat(provider.lock(config("stuck", Duration.ofSeconds(1), Duration.ZERO))).isPresent();
        this.first.get().close(); // a dead holder: nothing unlocks, nothing extends
        RedlockLockProvider other = new RedlockLockProvider(this.second.get());
        assertThat(other.lock(config("stuck", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
        awaitLock(other, "stuck", Duration.ofSeconds(10)).orElseThrow().unlock();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the next lock").isGreaterThanOrEqualTo(900);
    }

    @Test
    void lockAtMostForAboveTheMaxTtlHoldsByExtensionWhileTheHolderLives() throws Exception {
        try (Redlock shortKeys = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(1)).maxTtl(Duration.ofSeconds(1)).build()) {
            RedlockLockProvider provider = new RedlockLockProvider(shortKeys);
            SimpleLock lock = provider.lock(config("long", Duration.ofSeconds(4), Duration.ZERO)).orElseThrow();
            for (int node = 0; node < 5; node++) {
                assertThat(pttl(node, "redlock:shedlock:long")).as("no key lives past the max ttl, node " + node).isBetween(1L, 1000L);
            }
            Thread.sleep(2_000); // twice the max ttl: only extensions keep it
            RedlockLockProvider other = new RedlockLockProvider(this.second.get());
            assertThat(other.lock(config("long", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
            lock.unlock();
            assertThat(other.lock(config("long", Duration.ofSeconds(30), Duration.ZERO))).hasValueSatisfying(SimpleLock::unlock);
        }
    }

    @Test
    void anExtendedLockHoldsForTheNewLockAtMostForAndTheOldOneIsSpent() {
        RedlockLockProvider provider = new RedlockLockProvider(this.first.get());
        SimpleLock lock = provider.lock(config("extended", Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        for (int node = 0; node < 5; node++) {
            assertThat(pttl(node, "redlock:shedlock:extended")).as("ttl on node " + node).isGreaterThan(10_000L);
        }
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(lock::unlock);
        extended.unlock();
        RedlockLockProvider other = new RedlockLockProvider(this.second.get());
        assertThat(other.lock(config("extended", Duration.ofSeconds(30), Duration.ZERO))).hasValueSatisfying(SimpleLock::unlock);
    }

    @Test
    void aLockThatWasTakenByAnotherHolderIsNotExtended() throws Exception {
        RedlockLockProvider provider = new RedlockLockProvider(this.first.get());
        SimpleLock lock = provider.lock(config("lapsed", Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        RedlockLockProvider other = new RedlockLockProvider(this.second.get());
        SimpleLock taken = awaitLock(other, "lapsed", Duration.ofSeconds(10)).orElseThrow();
        assertThat(lock.extend(Duration.ofSeconds(20), Duration.ZERO)).isEmpty();
        taken.unlock();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    /** Tries every 20 ms until the lock is taken, for at most {@code bound}. */
    private static Optional<SimpleLock> awaitLock(RedlockLockProvider provider, String name, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        while (lock.isEmpty() && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        }
        return lock;
    }

    private static long pttl(int node, String key) {
        RedisClient client = RedisClient.create(redis.node(node).uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().pttl(key);
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

}
