package io.github.redlock.chaos;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redlock.test.ProcessCuts;
import io.github.redlock.test.RedisCluster;
import io.github.redlock.test.RedisNode;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The Redis Cluster that is one of a run's nodes (three masters, a replica each), and its
 * {@link FaultKind#CLUSTER_FAILOVER}: a failover of one shard in the hazardous way, as {@link SentinelFailover} does
 * it to a Sentinel group. The shard is the one that serves a key the run locks, drawn from the seed. Its replica is
 * cut off from its master first (paused, and its replication link dropped with {@code CLIENT KILL TYPE replica}), so
 * that what the master acknowledges from then on never reaches it; the master is then killed, and the replica is
 * promoted without those writes. The killed server comes back empty on its port with its cluster identity (its
 * {@code nodes.conf}), so that it rejoins as a replica of the promoted one, and the shard has a replica again for the
 * next failover.
 * <p>
 * The replica is told to take over ({@code CLUSTER FAILOVER TAKEOVER}) as soon as the master is killed, rather than left
 * to the cluster, whose masters mark a master failed only after the node timeout (2 s here) and then elect a replica
 * after a further delay of half a second or more: a lease of the run lasts 2 s at most, and must still be valid when
 * the promoted replica votes for the hazard to matter. {@code TAKEOVER}, not {@code FORCE}: with {@code FORCE} the
 * other masters still elect the replica, but a master votes for no replica of a shard within twice the node timeout
 * (4 s) of its last vote for that shard, and a run of this fault alone fails shards over every 2 to 4 s; the refused
 * election then waits for the cluster's own failover, some 9 s, by which time every lease of the lag has run out.
 * {@code TAKEOVER} promotes the replica without a vote, as quickly every time; here no other replica could win an
 * election, so the outcome is the one an election would have. Every wait is bounded ({@link #TIMEOUT}, and the 30 s of {@link RedisCluster}'s
 * waits); should the takeover not happen, the cluster's own failover promotes the replica after its timeout.
 */
final class ClusterFailover extends LossyFailover {

    /** A cluster node's bus port is its port plus this ({@link RedisCluster}'s nodes keep Redis's default). */
    private static final int BUS_OFFSET = 10_000;

    /** The cluster's own node timeout ({@link RedisCluster}'s 2 s), restored after a partition. */
    private static final long NODE_TIMEOUT_MILLIS = 2_000;

    /**
     * The node timeout during a {@link FaultKind#CLUSTER_PARTITION}: Redis 7's default. A master cut off from the bus
     * accepts writes until its own node timeout; with the run's 2 s it would stop before any client could count the
     * promoted replica, and the hazard would not show.
     */
    private static final long PARTITION_NODE_TIMEOUT_MILLIS = 15_000;

    private final RedisCluster cluster;

    /** The Redis keys the run locks: the shard that fails over serves one of them. */
    private final List<String> keys;

    /**
     * Fails over the given cluster, which it closes with itself.
     * @param keys the Redis keys (with the key prefix) that the run locks, one of which each failover's shard serves
     */
    ClusterFailover(RedisCluster cluster, List<String> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a cluster failover needs the keys the run locks, to fail over a shard that holds one");
        }
        this.cluster = cluster;
        this.keys = List.copyOf(keys);
    }

    /** Starts a cluster of three masters with a replica each, settled. */
    static ClusterFailover start(List<String> keys) {
        return new ClusterFailover(RedisCluster.start(3, 1), keys);
    }

    /** The cluster's node entry, {@code redis-cluster://…} with every node as a seed. */
    String uri() {
        return this.cluster.uri();
    }

    /** The cluster's servers. */
    RedisCluster cluster() {
        return this.cluster;
    }

    /**
     * Fails one shard over in the hazardous way, as the class describes, and returns when the killed server replicates
     * the promoted one and the cluster is whole again.
     * @param random draws the key whose shard fails over
     * @param lagging runs while the replica is cut off from the master, before the master is killed: what is written to
     * the master meanwhile is missing on the promoted replica
     * @return what was done, for the run's fault log
     */
    String failOverLosingWrites(Random random, Runnable lagging) {
        awaitReady();
        String key = this.keys.get(random.nextInt(this.keys.size()));
        RedisNode master = this.cluster.masterOf(key);
        RedisNode replica = this.cluster.replicasOf(master).get(0);
        long killed = killWhileItsReplicaLags(master, replica, lagging, () -> this.cluster.kill(master));
        String forced = takeOver(replica);
        RedisNode promoted = this.cluster.awaitFailover(master);
        long failedOver = System.nanoTime();
        master.restart();
        this.cluster.awaitHealthy();
        return report(master.hostAndPort() + " of " + key, promoted, killed, failedOver, forced);
    }

    /**
     * Waits until the cluster is whole: every node up and known to every other, every replica in sync with its master.
     * A failover can then promote any replica at once.
     */
    void awaitReady() {
        this.cluster.awaitHealthy();
    }

    @Override
    List<RedisNode> servers() {
        return this.cluster.nodes();
    }

    @Override
    void closeServers() {
        this.cluster.close();
    }

    /**
     * {@link FaultKind#CLUSTER_PARTITION}: one client process and the master of a locked key's shard are cut off
     * together. The client loses every server of the cluster but that master, and the given ports (standalone nodes);
     * the master loses the cluster bus both ways, so that it never hears of the failover and goes on answering as the
     * master of its slots. Its replica is told to take over ({@code CLUSTER FAILOVER TAKEOVER}), which the other masters
     * follow. After {@code holdMillis} from the promotion every cut ends: the former master learns of the promotion and
     * becomes its replica, and the cluster is whole again before this returns. The cluster's node timeout is Redis 7's
     * default meanwhile (15 s), under which a master cut off from the bus accepts writes for as long.
     * @param cuts the run's cuts, which the client process, the master and its peers join
     * @param clientPid the client process cut off with the master
     * @param otherPorts further ports the client loses (standalone nodes)
     * @return what was done, for the run's fault log
     */
    String cutOffWithItsMaster(Random random, ProcessCuts cuts, long clientPid, int[] otherPorts, long holdMillis) {
        awaitReady();
        String key = this.keys.get(random.nextInt(this.keys.size()));
        RedisNode master = this.cluster.masterOf(key);
        RedisNode replica = this.cluster.replicasOf(master).get(0);
        List<RedisNode> others = this.cluster.nodes().stream().filter((node) -> node != master).toList();
        RedisNode witness = this.cluster.masters().stream().filter((node) -> node != master).findFirst().orElseThrow();
        long promoted;
        String forced;
        setNodeTimeout(PARTITION_NODE_TIMEOUT_MILLIS);
        try (StatefulRedisConnection<String, String> watching = this.client.connect(uri(witness))) {
            try {
                cuts.join(clientPid);
                cuts.cut(clientPid, IntStream.concat(others.stream().mapToInt(RedisNode::port), Arrays.stream(otherPorts)).toArray());
                for (RedisNode other : others) {
                    cuts.join(other.pid());
                    cuts.cut(other.pid(), master.port() + BUS_OFFSET);
                }
                cuts.join(master.pid());
                cuts.cut(master.pid(), others.stream().mapToInt((node) -> node.port() + BUS_OFFSET).toArray());
                forced = takeOver(replica);
                await(() -> seesAsMaster(watching, replica), () -> witness + " did not see " + replica + " promoted");
                promoted = System.nanoTime();
                Faults.sleep(holdMillis);
            }
            finally {
                cuts.healAll();
            }
            this.cluster.awaitHealthy();
        }
        finally {
            setNodeTimeout(NODE_TIMEOUT_MILLIS); // also after a failure: the next fault, or the next run's, expects it
        }
        return "master " + master.hostAndPort() + " of " + key + " cut off from the cluster bus, with the client; " + replica.hostAndPort()
                + " took over" + forced + "; the cuts ended " + holdMillis + " ms after " + witness.hostAndPort() + " saw it, and "
                + master.hostAndPort() + " became its replica " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promoted)
                + " ms after the promotion";
    }

    /** Whether the view of the cluster read on {@code viewer} has {@code node} as a master; false while it does not answer. */
    private static boolean seesAsMaster(StatefulRedisConnection<String, String> viewer, RedisNode node) {
        try {
            return viewer.sync().clusterNodes().lines().anyMatch((line) -> line.contains(":" + node.port() + "@")
                    && line.split(" ")[2].contains("master"));
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** Sets every running node's {@code cluster-node-timeout}. */
    private void setNodeTimeout(long millis) {
        for (RedisNode node : this.cluster.nodes()) {
            if (node.isRunning()) {
                try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(node))) {
                    connection.sync().configSet("cluster-node-timeout", Long.toString(millis));
                }
            }
        }
    }

    /**
     * Tells the replica to take over ({@code CLUSTER FAILOVER TAKEOVER}), again while it answers with an error, until it
     * accepts, is a master already, or {@link #TIMEOUT} passes.
     * @return nothing when the replica accepted, else a note for the fault log that the cluster's own failover was waited for
     */
    private String takeOver(RedisNode replica) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String last = "nothing";
        while (System.nanoTime() - deadline < 0) {
            try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(replica))) {
                last = connection.sync().clusterFailover(false, true);
                if ("OK".equals(last)) {
                    return "";
                }
            }
            catch (RuntimeException ex) {
                last = ex.getMessage();
                if (last != null && last.contains("to a replica")) {
                    break; // a master already: the cluster's own failover came first
                }
            }
            Faults.sleep(POLL_MILLIS);
        }
        return " (CLUSTER FAILOVER TAKEOVER answered " + last + ": the cluster's own failover promoted it)";
    }

}
