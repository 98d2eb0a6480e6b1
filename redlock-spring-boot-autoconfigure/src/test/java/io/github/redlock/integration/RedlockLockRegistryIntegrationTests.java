package io.github.redlock.integration;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The registry's locks follow the {@link Lock} contract across threads and across processes (two Redlocks on
 * five real nodes stand for two instances).
 */
class RedlockLockRegistryIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> first = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> second = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build());

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @org.junit.jupiter.api.AfterEach
    void stopThreads() {
        this.threads.shutdownNow();
    }

    @Test
    void aLockHeldInOneInstanceKeepsTheOtherInstanceOutUntilItIsUnlocked() throws Exception {
        Lock mine = new RedlockLockRegistry(this.first.get()).obtain("invoice");
        Lock theirs = new RedlockLockRegistry(this.second.get()).obtain("invoice");
        assertThat(mine.tryLock()).isTrue();
        assertThat(onAnotherThread(theirs::tryLock)).isFalse();
        long start = System.nanoTime();
        assertThat(onAnotherThread(() -> theirs.tryLock(300, TimeUnit.MILLISECONDS))).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("waited its timeout").isGreaterThanOrEqualTo(250);
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                boolean taken = theirs.tryLock(10, TimeUnit.SECONDS);
                theirs.unlock();
                return taken;
            }
            catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        }, this.threads);
        Poll.until(Duration.ofSeconds(5), () -> subscribed(0), () -> "the other instance never waited for a release"); // refused, and waiting
        mine.unlock();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("the waiter took it after the unlock").isTrue();
    }

    @Test
    void aLockIsReentrantForItsOwnerAndExcludesTheOtherThreadsOfItsInstance() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get());
        Lock lock = registry.obtain("report");
        assertThat(registry.obtain("report")).isSameAs(lock);
        lock.lock();
        assertThat(lock.tryLock()).as("again, by its owner").isTrue();
        assertThat(onAnotherThread(lock::tryLock)).as("another thread of this instance").isFalse();
        lock.unlock();
        assertThat(onAnotherThread(lock::tryLock)).as("still held once").isFalse();
        assertThat(registry.lease("report")).isPresent();
        lock.unlock();
        assertThat(registry.lease("report")).isEmpty();
        assertThat(new RedlockLockRegistry(this.second.get()).obtain("report").tryLock()).as("the other instance, after the last unlock")
                .isTrue();
    }

    @Test
    void onlyTheOwnerMayUnlockAndAnUnheldLockCannotBeUnlocked() throws Exception {
        Lock lock = new RedlockLockRegistry(this.first.get()).obtain("owned");
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock).withMessageContaining("'lock-registry:owned'");
        lock.lock();
        Throwable failure = this.threads.submit(() -> {
            try {
                lock.unlock();
                return null;
            }
            catch (IllegalMonitorStateException ex) {
                return ex;
            }
        }).get(10, TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("only its owner may unlock it");
        lock.unlock();
    }

    @Test
    void aLeaseLostWhileHeldInterruptsTheOwnerAndItsUnlockSaysSo() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get(), "lock-registry", Duration.ofSeconds(2));
        Lock lock = registry.obtain("stolen");
        CompletableFuture<String> owner = CompletableFuture.supplyAsync(() -> {
            lock.lock();
            try {
                Thread.sleep(30_000);
                return "not interrupted";
            }
            catch (InterruptedException ex) {
                try {
                    lock.unlock();
                    return "unlocked quietly";
                }
                catch (IllegalStateException lost) {
                    return lost.getMessage();
                }
            }
        }, this.threads);
        Await.until(() -> registry.lease("stolen").isPresent(), "the lock held");
        long start = System.nanoTime();
        for (int node = 0; node < 5; node++) {
            redis.node(node).flushAll(); // the keys vanish: the next extension is refused
        }
        assertThat(owner.get(10, TimeUnit.SECONDS)).contains("was lost before this unlock");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the owner was interrupted").isLessThan(5_000);
    }

    @Test
    void aHolderWhoseLeaseWasLostAndTakenElsewhereHoldsTheLockNoMoreInItsOwnInstance() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get(), "lock-registry", Duration.ofSeconds(2));
        registry.setInterruptOnLoss(false);
        Lock lock = registry.obtain("moved");
        Lock elsewhere = new RedlockLockRegistry(this.second.get()).obtain("moved");
        CompletableFuture<Boolean> reentered = new CompletableFuture<>();
        CompletableFuture<Boolean> stillOwner = new CompletableFuture<>();
        CompletableFuture<Void> lost = new CompletableFuture<>();
        this.threads.submit(() -> {
            lock.lock();
            registry.lease("moved").orElseThrow().lost().thenRun(() -> lost.complete(null));
            lost.get(10, TimeUnit.SECONDS);
            assertThat(elsewhere.tryLock(5, TimeUnit.SECONDS)).as("taken by the other instance").isTrue();
            reentered.complete(lock.tryLock()); // the heartbeat of a leader: once more, while the other holds it
            stillOwner.complete(((RedlockDistributedLock) lock).isHeldByCurrentThread());
            return null;
        });
        Await.until(() -> registry.lease("moved").isPresent(), "the lock held");
        for (int node = 0; node < 5; node++) {
            redis.node(node).flushAll(); // the next extension is refused: the lease is lost
        }
        assertThat(reentered.get(15, TimeUnit.SECONDS)).as("the re-take while the other instance holds it").isFalse();
        assertThat(stillOwner.get(5, TimeUnit.SECONDS)).as("a hold left behind by the first lock()").isFalse();
        assertThat(registry.lease("moved")).isEmpty();
        assertThat(onAnotherThread(lock::tryLock)).as("another thread of the first instance, while the other holds it").isFalse();
    }

    @Test
    void renewingALockItDoesNotHoldFailsClearly() {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get());
        registry.obtain("renewed");
        assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("renewed")).withMessageContaining("not held by this thread");
        Lock lock = registry.obtain("renewed");
        lock.lock();
        registry.renewLock("renewed", Duration.ofSeconds(20));
        assertThat(registry.lease("renewed").orElseThrow().remainingValidity()).isGreaterThan(Duration.ofSeconds(15));
        lock.unlock();
    }

    @Test
    void badKeysAndTtlsAreRefusedNamingTheProblem() {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get());
        assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42)).withMessageContaining("Strings, was java.lang.Integer");
        assertThatIllegalArgumentException().isThrownBy(() -> new RedlockLockRegistry(this.first.get(), "r", Duration.ofMinutes(2)))
                .withMessageContaining("maxTtl of PT1M");
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> registry.obtain("k").newCondition());
    }

    private boolean onAnotherThread(java.util.concurrent.Callable<Boolean> call) throws Exception {
        return this.threads.submit(call).get(30, TimeUnit.SECONDS);
    }

    /** Whether a client listens for releases on a node (a caller that waits subscribes; one that gave up does not). */
    private static boolean subscribed(int node) {
        RedisClient client = RedisClient.create(redis.uris().get(node));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return !connection.sync().pubsubChannels().isEmpty();
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

}
