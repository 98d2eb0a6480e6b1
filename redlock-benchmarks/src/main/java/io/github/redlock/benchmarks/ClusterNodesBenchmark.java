package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNodes;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One lock + unlock (a single attempt, no wait, then the release) through the public API, on five standalone nodes
 * ({@code nodes = standalone}) or on five nodes that are each a Redis Cluster of {@value #MASTERS_PER_CLUSTER}
 * masters without replicas ({@code nodes = cluster}: {@value #NODES} × {@value #MASTERS_PER_CLUSTER} server
 * processes), both started from the same {@code redis-server} binary by {@code redlock-test}, with the same client
 * settings as {@link LockUnlockBenchmark}. Each thread rotates over {@value Keys#PER_THREAD} keys of its own, so that
 * no two threads fight and a cluster node's locks spread over all its masters (the keys' slots are spread evenly).
 * Issue 25 compares the two in one run: the uncontended p50 at 1 thread and the throughput at 64 threads
 * ({@code RunBenchmarks --cluster}).
 * <p>
 * Each fork waits until every node votes before it measures, and counts the attempts that were refused: JMH reports
 * the locks held and released per second ({@code lockUnlock:held}) beside the attempts, and a side whose locks fail
 * would measure a cheaper path than the lock's, so its trial fails when more than {@value #MAX_REFUSED_PERCENT} % of
 * its attempts were refused.
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClusterNodesBenchmark {

    /** The nodes of the lock, on both sides. */
    static final int NODES = 5;

    /** The masters of each cluster node. */
    static final int MASTERS_PER_CLUSTER = 3;

    /**
     * The share of refused attempts above which a trial fails, in percent: a side whose nodes do not vote refuses
     * nearly every attempt, at once. On an overloaded machine a few attempts are refused anyway (three nodes slower
     * than the node timeout); those count as attempts in the score and not in {@code lockUnlock:held}.
     */
    static final int MAX_REFUSED_PERCENT = 25;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    /** What the lock's nodes are: {@code standalone} masters, or {@code cluster} entries. */
    @Param({ "standalone", "cluster" })
    public String nodes;

    private RedisNodes standalone;

    private final List<RedisCluster> clusters = new ArrayList<>();

    private Redlock redlock;

    private final LongAdder attempts = new LongAdder();

    private final LongAdder refused = new LongAdder();

    /**
     * Starts the nodes of this side and a lock on them, and waits until every node votes.
     * @throws IllegalStateException when a node does not start, or not every node votes within 30 s
     */
    @Setup(Level.Trial)
    public void start() {
        List<String> uris = new ArrayList<>();
        try {
            if (this.nodes.equals("cluster")) {
                for (int i = 0; i < NODES; i++) {
                    RedisCluster cluster = RedisCluster.start(MASTERS_PER_CLUSTER, 0);
                    this.clusters.add(cluster);
                    uris.add(cluster.uri());
                }
            }
            else if (this.nodes.equals("standalone")) {
                this.standalone = RedisNodes.start(NODES);
                uris.addAll(this.standalone.uris());
            }
            else {
                throw new IllegalArgumentException("nodes is 'standalone' or 'cluster', was '" + this.nodes + "'");
            }
            this.redlock = Redlock.builder().nodes(uris).nodeTimeout(LockUnlockBenchmark.NODE_TIMEOUT).build();
            awaitEveryNodeUp();
        }
        catch (RuntimeException ex) {
            stop();
            throw ex;
        }
    }

    /**
     * Closes the lock and stops the nodes, after printing how many attempts were refused.
     * @throws IllegalStateException when more than {@value #MAX_REFUSED_PERCENT} % of the attempts were refused
     */
    @TearDown(Level.Trial)
    public void stop() {
        if (this.redlock != null) {
            this.redlock.close();
            this.redlock = null;
        }
        this.clusters.forEach(RedisCluster::close);
        this.clusters.clear();
        if (this.standalone != null) {
            this.standalone.close();
            this.standalone = null;
        }
        long all = this.attempts.sum();
        long no = this.refused.sum();
        if (all > 0) {
            System.out.printf("%n%s nodes: %d of %d attempts refused%n", this.nodes, no, all);
            if (no * 100 > all * MAX_REFUSED_PERCENT) {
                throw new IllegalStateException(this.nodes + " nodes refused " + no + " of " + all + " attempts, over "
                        + MAX_REFUSED_PERCENT + " %: the figures would measure failures, not locks");
            }
        }
    }

    /** The lock's nodes as the lock names them ({@code host:port}, or a cluster entry's seeds), for tests. */
    List<String> nodeNames() {
        return List.copyOf(this.redlock.nodeStatuses().keySet());
    }

    /** The clusters of the {@code cluster} side, empty on the other, for tests. */
    List<RedisCluster> clusters() {
        return List.copyOf(this.clusters);
    }

    private void awaitEveryNodeUp() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        Map<String, NodeStatus> statuses = this.redlock.nodeStatuses();
        while (!statuses.values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Not every node votes after " + READY_TIMEOUT.toSeconds() + " s: " + statuses);
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the nodes", ex);
            }
            statuses = this.redlock.nodeStatuses();
        }
    }

    /** The keys of one thread: {@value #PER_THREAD} of its own, one after the other. */
    @State(Scope.Thread)
    public static class Keys {

        /** The keys each thread rotates over. */
        static final int PER_THREAD = 1024;

        private final String[] keys = new String[PER_THREAD];

        private int next;

        /** Names this thread's keys: a prefix of its own, then a number. */
        public Keys() {
            String prefix = "bench:" + UUID.randomUUID() + ":";
            for (int i = 0; i < PER_THREAD; i++) {
                this.keys[i] = prefix + i;
            }
        }

        /**
         * Returns the next key of this thread.
         * @return the key after the last one returned, the first after the last
         */
        public String next() {
            String key = this.keys[this.next];
            this.next = (this.next + 1) % PER_THREAD;
            return key;
        }

    }

    /**
     * What one thread's attempts came to in an iteration, which JMH reports per second beside the attempts
     * ({@code lockUnlock:held}, {@code lockUnlock:refused}): the throughput that counts is of locks held and released.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Outcomes {

        /** Attempts that held their lock and released it. */
        public long held;

        /** Attempts that did not hold their lock, or whose release did not go through. */
        public long refused;

        /** Starts each iteration's counts at zero. */
        @Setup(Level.Iteration)
        public void clear() {
            this.held = 0;
            this.refused = 0;
        }

    }

    /**
     * One attempt to lock the thread's next key (no wait), released at once when held.
     * @param keys the thread's keys
     * @param outcomes the thread's counts of held and refused attempts
     * @return whether the lock was held and released
     */
    @Benchmark
    public boolean lockUnlock(Keys keys, Outcomes outcomes) {
        boolean done = this.redlock.tryAcquire(keys.next(), LockUnlockBenchmark.TTL).map((lease) -> lease.release()).orElse(false);
        this.attempts.increment();
        if (done) {
            outcomes.held++;
        }
        else {
            outcomes.refused++;
            this.refused.increment();
        }
        return done;
    }

}
