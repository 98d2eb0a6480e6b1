package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;

/**
 * The operations whose cost {@link CommandCosts} measures, each through the public API as an application calls it.
 * The uncontended ones run on one thread, one operation after the other, over 1,000 rotating keys that no one
 * else holds; the contended ones on two threads that take turns on one key.
 */
final class Workloads {

    /** The ttl of every lease: long enough that none expires while it is held. */
    static final Duration TTL = Duration.ofSeconds(10);

    /** How long a contended holder keeps the lock, so that the other one always waits for it. */
    private static final Duration HOLD = Duration.ofMillis(1);

    /** How long a contended caller waits for the lock at most. */
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static final int KEYS = 1000;

    private Workloads() {
    }

    /**
     * Returns every workload, in the order of the table.
     * @param redlock the client of the uncontended workloads and the first contender
     * @param fenced a client with fencing tokens on
     * @param rival a second client of the same nodes, as another instance of the application
     * @return the workloads; closing them releases what they hold
     */
    static List<Workload> all(Redlock redlock, Redlock fenced, Redlock rival) {
        return List.of(lockUnlock("exclusive", "tryAcquire(key, ttl) + release()", (key) -> redlock.tryAcquire(key, TTL)),
                lockUnlock("fenced exclusive", "the same on a client built with fencing(true)", (key) -> fenced.tryAcquire(key, TTL)),
                lockUnlock("read", "tryAcquireRead(key, ttl) + release()", (key) -> redlock.tryAcquireRead(key, TTL)),
                lockUnlock("write", "tryAcquireWrite(key, ttl) + release()", (key) -> redlock.tryAcquireWrite(key, TTL)),
                lockUnlock("multi-key (3 keys)", "tryAcquire(List.of(k1, k2, k3), ttl) + release()",
                        (key) -> redlock.tryAcquire(List.of(key + ":1", key + ":2", key + ":3"), TTL)),
                new Extension(redlock),
                new Contended("contended, 1 client", "2 threads of one client take turns: tryAcquire(key, ttl, 5 s), hold 1 ms, release()",
                        redlock, redlock),
                new Contended("contended, 2 clients", "the same, a thread in each of 2 clients", redlock, rival));
    }

    private static Workload lockUnlock(String name, String calls, Function<String, Optional<RedlockLease>> acquire) {
        AtomicInteger next = new AtomicInteger();
        String prefix = "costs:" + name.replaceAll("[^a-z]+", "-") + ":";
        return new Workload() {

            @Override
            public String name() {
                return name;
            }

            @Override
            public String calls() {
                return calls;
            }

            @Override
            public int run(int operations) {
                int succeeded = 0;
                for (int i = 0; i < operations; i++) {
                    String key = prefix + Math.floorMod(next.getAndIncrement(), KEYS);
                    succeeded += acquire.apply(key).map(RedlockLease::release).orElse(false) ? 1 : 0;
                }
                return succeeded;
            }

        };
    }

    /** Extends one held lease again and again; the lease is taken at the first run and released at the close. */
    private static final class Extension implements Workload {

        private final Redlock redlock;

        /** The held lease, or null before the first run. */
        private RedlockLease lease;

        Extension(Redlock redlock) {
            this.redlock = redlock;
        }

        @Override
        public String name() {
            return "extension";
        }

        @Override
        public String calls() {
            return "extend(ttl) of a held lease";
        }

        @Override
        public int run(int operations) {
            RedlockLease held = this.lease;
            if (held == null) {
                held = this.redlock.tryAcquire("costs:extension", TTL)
                        .orElseThrow(() -> new IllegalStateException("costs:extension could not be acquired: are the nodes up?"));
                this.lease = held;
            }
            int succeeded = 0;
            for (int i = 0; i < operations; i++) {
                succeeded += held.extend(TTL) ? 1 : 0;
            }
            return succeeded;
        }

        @Override
        public void close() {
            if (this.lease != null) {
                this.lease.release();
            }
        }

    }

    /**
     * Two threads take turns on one key: each waits for the lock, holds it {@link #HOLD}, releases it, and asks again,
     * so that nearly every acquisition waits for the other's release.
     */
    private static final class Contended implements Workload {

        private final String name;

        private final String calls;

        private final Redlock[] contenders;

        Contended(String name, String calls, Redlock first, Redlock second) {
            this.name = name;
            this.calls = calls;
            this.contenders = new Redlock[] { first, second };
        }

        @Override
        public String name() {
            return this.name;
        }

        @Override
        public String calls() {
            return this.calls;
        }

        @Override
        public int run(int operations) throws InterruptedException {
            String key = "costs:" + this.name.replaceAll("[^a-z0-9]+", "-");
            AtomicInteger succeeded = new AtomicInteger();
            Thread[] threads = new Thread[this.contenders.length];
            for (int t = 0; t < threads.length; t++) {
                Redlock redlock = this.contenders[t];
                int share = operations / threads.length + ((t < operations % threads.length) ? 1 : 0);
                threads[t] = new Thread(() -> takeTurns(redlock, key, share, succeeded), this.name + " " + t);
                threads[t].start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            return succeeded.get();
        }

        private static void takeTurns(Redlock redlock, String key, int operations, AtomicInteger succeeded) {
            for (int i = 0; i < operations; i++) {
                Optional<RedlockLease> lease = redlock.tryAcquire(key, TTL, WAIT);
                if (lease.isPresent()) {
                    try (RedlockLease held = lease.get()) {
                        Thread.sleep(HOLD.toMillis());
                        succeeded.incrementAndGet();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

    }

}
