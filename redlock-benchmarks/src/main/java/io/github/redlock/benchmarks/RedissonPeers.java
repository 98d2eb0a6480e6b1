package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

/**
 * Redisson, the peer: {@code RedissonRedLock} over one single-server client per node (its documented Redlock
 * setup) and a plain {@code RLock} on one node. Same command timeout as ours, no retries, so that a slow
 * node costs both libraries the same.
 */
final class RedissonPeers implements AutoCloseable {

    private final List<RedissonClient> clients = new ArrayList<>();

    RedissonPeers(List<String> uris, Duration timeout) {
        for (String uri : uris) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri).setTimeout((int) timeout.toMillis()).setRetryAttempts(0)
                    .setConnectionMinimumIdleSize(4).setConnectionPoolSize(64);
            this.clients.add(Redisson.create(config));
        }
    }

    /** Lock and unlock with RedissonRedLock over every node; returns whether it was acquired. */
    boolean redlock(String key, long ttlMillis) throws InterruptedException {
        return lockUnlock(redlockOf(key), ttlMillis);
    }

    /** Lock and unlock with a plain RLock on the first node; returns whether it was acquired. */
    boolean single(String key, long ttlMillis) throws InterruptedException {
        return lockUnlock(singleOf(key), ttlMillis);
    }

    /** A new RedissonRedLock of {@code key} over every node, for one attempt (it is not reusable across threads). */
    @SuppressWarnings("deprecation") // RedissonRedLock is deprecated in Redisson, but it is its Redlock
    RLock redlockOf(String key) {
        RLock[] locks = new RLock[this.clients.size()];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = this.clients.get(i).getLock(key);
        }
        return new RedissonRedLock(locks);
    }

    /** The plain RLock of {@code key} on the first node. */
    RLock singleOf(String key) {
        return this.clients.get(0).getLock(key);
    }

    private static boolean lockUnlock(RLock lock, long ttlMillis) throws InterruptedException {
        try {
            if (!lock.tryLock(0, ttlMillis, TimeUnit.MILLISECONDS)) {
                return false;
            }
            lock.unlock();
            return true;
        }
        catch (RedisException | CompletionException | IllegalMonitorStateException ex) {
            // Its pool or write timed out under load (RedissonMultiLock rethrows these wrapped in a
            // CompletionException), or unlock found the lease gone: a failed attempt, as ours would report.
            return false;
        }
    }

    @Override
    public void close() {
        this.clients.forEach(RedissonClient::shutdown);
    }

}
