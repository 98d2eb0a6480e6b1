package io.github.redlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

import io.github.redlock.core.Redlock;

/**
 * Uncontended lock + unlock at full speed: many threads of one client, each on its own rotating keys, for a warm-up
 * and then a measured window, in which the nodes' statistics are sampled at the start and at the end. It gives the
 * nodes' CPU per lock under load, where a node reads several requests per wake-up, not one: many when the threads
 * share one client (its commands to a node go over one connection), fewer when they are spread over several.
 */
final class Throughput {

    /** The keys of each thread, in turn. */
    private static final int KEYS_PER_THREAD = 16;

    private final LongAdder succeeded = new LongAdder();

    private final LongAdder failed = new LongAdder();

    /** Held (shared) by each operation, and (exclusively) while the nodes are sampled. */
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();

    private volatile boolean measuring;

    private volatile boolean stopped;

    private Throughput() {
    }

    /**
     * Runs the threads through the warm-up and the measured window.
     * @param clients the clients the threads share, in turn: one, as the threads of one application share theirs, or
     * several, as several instances of it (each with its own connection to each node)
     * @param stats the nodes' statistics
     * @param sources where the commands of an exclusive lock + unlock come from
     * @param threads how many threads
     * @param warmUp how long they run before the window
     * @param window how long the window lasts
     * @return the window's cost; its name says the threads and clients, its operations count the successful ones only
     * @throws InterruptedException when interrupted
     */
    static OperationCost measure(List<Redlock> clients, NodeStats stats, CommandSources sources, int threads, Duration warmUp,
            Duration window) throws InterruptedException {
        Throughput run = new Throughput();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            Redlock redlock = clients.get(t % clients.size());
            String prefix = "costs:throughput:" + t + ":";
            workers[t] = new Thread(() -> run.lockUnlock(redlock, prefix), "throughput " + t);
            workers[t].start();
        }
        try {
            Thread.sleep(warmUp.toMillis());
            stats.reset();
            long[] start = new long[2];
            List<NodeSample> before = run.quiesced(() -> {
                run.measuring = true;
                start[0] = System.nanoTime();
                start[1] = clientCpuNanos();
                return stats.sample();
            });
            Thread.sleep(window.toMillis());
            long[] elapsed = new long[2];
            List<NodeSample> after = run.quiesced(() -> {
                run.measuring = false;
                elapsed[0] = System.nanoTime() - start[0];
                elapsed[1] = clientCpuNanos() - start[1];
                return stats.sample();
            });
            String name = "exclusive, " + threads + " threads" + ((clients.size() > 1) ? " in " + clients.size() + " clients" : ", 1 client");
            String calls = "tryAcquire(key, ttl) + release(), each thread on its own keys; " + run.failed.sum() + " failed";
            return new OperationCost(name, calls, run.succeeded.sum(), run.succeeded.sum(), elapsed[0], NodeSample.between(before, after),
                    sources, elapsed[1]);
        }
        finally {
            run.stopped = true;
            for (Thread worker : workers) {
                worker.join();
            }
        }
    }

    /**
     * Returns the CPU time each node's main thread uses per second while the clients are connected but idle: Redis's
     * own periodic work ({@code hz}) and the clients' background commands, which every figure includes.
     * @param stats the nodes' statistics
     * @param idle how long to watch
     * @return microseconds of CPU per second, the mean over the nodes
     * @throws InterruptedException when interrupted
     */
    static double idleMicrosPerSecond(NodeStats stats, Duration idle) throws InterruptedException {
        List<NodeSample> before = stats.sample();
        long start = System.nanoTime();
        Thread.sleep(idle.toMillis());
        List<NodeSample> after = stats.sample();
        double seconds = (System.nanoTime() - start) / 1e9;
        return NodeSample.between(before, after).stream().mapToDouble(NodeSample::mainThreadCpuSeconds).average().orElse(0) * 1e6 / seconds;
    }

    /**
     * Returns the CPU time this JVM has used so far.
     * @return nanoseconds, or 0 where the JVM does not say
     */
    static long clientCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /**
     * Samples the nodes while no operation runs: the operations counted and the commands the nodes counted then
     * cover the same locks (but for replies still on their way from the nodes that a decision did not wait for).
     */
    private List<NodeSample> quiesced(Supplier<List<NodeSample>> sample) {
        this.gate.writeLock().lock();
        try {
            return sample.get();
        }
        finally {
            this.gate.writeLock().unlock();
        }
    }

    private void lockUnlock(Redlock redlock, String prefix) {
        for (int i = 0; !this.stopped; i++) {
            this.gate.readLock().lock();
            try {
                boolean locked = redlock.tryAcquire(prefix + (i % KEYS_PER_THREAD), Workloads.TTL).map((lease) -> lease.release())
                        .orElse(false);
                if (this.measuring) {
                    (locked ? this.succeeded : this.failed).increment();
                }
            }
            finally {
                this.gate.readLock().unlock();
            }
        }
    }

}
