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
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
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
 * Two variants take the cluster side apart, for a run that asks for them ({@code -p nodes=...}): a name that ends in
 * {@value #ONE_MASTER} gives every key one hash tag, so that each cluster's locks all land on one of its masters
 * (the other masters only follow the cluster); one that ends in {@value #NO_PUBLISH} (after {@value #ONE_MASTER}, if
 * both) takes the channel permissions of every server's default user away ({@code ACL SETUSER default
 * resetchannels}), so that a release's {@code PUBLISH}, which the script makes with {@code pcall}, is refused and
 * nothing is published: on a cluster, a {@code PUBLISH} goes to every node of the cluster over its bus. Since the
 * release scripts publish only where a client was refused the lock lately, no release of this benchmark publishes
 * either way: the variant stays to compare with runs of the library before that change.
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

    /** The end of a variant's name in which each cluster's locks all land on one master. */
    static final String ONE_MASTER = "-one-master";

    /** The end of a variant's name in which no release publishes. */
    static final String NO_PUBLISH = "-no-publish";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    /**
     * What the lock's nodes are: {@code standalone} masters, or {@code cluster} entries; either may end in
     * {@value #NO_PUBLISH}, and {@code cluster} in {@value #ONE_MASTER} (then {@value #NO_PUBLISH}), see above.
     */
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
        String variant = this.nodes;
        boolean noPublish = variant.endsWith(NO_PUBLISH);
        variant = noPublish ? variant.substring(0, variant.length() - NO_PUBLISH.length()) : variant;
        variant = oneMaster() ? variant.substring(0, variant.length() - ONE_MASTER.length()) : variant;
        List<String> uris = new ArrayList<>();
        List<RedisNode> servers = new ArrayList<>();
        try {
            if (variant.equals("cluster")) {
                for (int i = 0; i < NODES; i++) {
                    RedisCluster cluster = RedisCluster.start(MASTERS_PER_CLUSTER, 0);
                    this.clusters.add(cluster);
                    uris.add(cluster.uri());
                    servers.addAll(cluster.nodes());
                }
            }
            else if (variant.equals("standalone") && !oneMaster()) {
                this.standalone = RedisNodes.start(NODES);
                uris.addAll(this.standalone.uris());
                servers.addAll(this.standalone.nodes());
            }
            else {
                throw new IllegalArgumentException("nodes is 'standalone' or 'cluster', 'cluster" + ONE_MASTER + "', each may end in '"
                        + NO_PUBLISH + "'; was '" + this.nodes + "'");
            }
            if (noPublish) {
                servers.forEach(ClusterNodesBenchmark::refuseChannels);
            }
            this.redlock = Redlock.builder().nodes(uris).nodeTimeout(LockUnlockBenchmark.NODE_TIMEOUT).build();
            awaitEveryNodeUp();
        }
        catch (RuntimeException ex) {
            stop();
            throw ex;
        }
    }

    /** Whether every key has one hash tag, so that each cluster's locks land on one master. */
    boolean oneMaster() {
        return this.nodes.replace(NO_PUBLISH, "").endsWith(ONE_MASTER);
    }

    /** Takes every channel permission from the server's default user: a release's {@code PUBLISH} is refused. */
    private static void refuseChannels(RedisNode server) {
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().aclSetuser("default", AclSetuserArgs.Builder.resetChannels());
        }
        finally {
            client.shutdown();
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

        /**
         * Names this thread's keys: a prefix of its own, then a number; the prefix holds a hash tag, the same for every
         * thread, where the benchmark's locks are to land on one master of each cluster.
         * @param benchmark the benchmark, which says whether they are
         */
        @Setup(Level.Trial)
        public void name(ClusterNodesBenchmark benchmark) {
            String prefix = (benchmark.oneMaster() ? "bench:{one}:" : "bench:") + UUID.randomUUID() + ":";
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
