package io.github.redlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A local Redis Cluster of real {@code redis-server} processes ({@code --cluster-enabled yes}): {@code masters}
 * masters that share the 16384 slots equally, each with {@code replicasPerMaster} replicas, every node on its own
 * free loopback port (its cluster bus on that port plus 10000) with its own working directory. It is formed over
 * RESP, without {@code redis-cli}, so it runs on the binary shipped for machines without Redis too (6.2).
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3, 1)) {
 *     String entry = cluster.uri();                          // redis-cluster://127.0.0.1:p1,127.0.0.1:p2,…
 *     RedisNode shard = cluster.masterOf("locks:order:42");  // the master that holds the key
 *     RedisNode promoted = cluster.failover(shard);          // its replica takes over
 * }
 * }</pre>
 *
 * The nodes time each other out after 2 s ({@code cluster-node-timeout}): a master killed or paused for longer is
 * replaced by its replica on its own, as in production, only sooner. A shard keeps its nodes for good (replica
 * migration is off), so a failover moves the master role inside the shard and nowhere else. Methods that ask "the
 * cluster" ask the first node that runs and is not paused, and answer what that node sees.
 */
public final class RedisCluster implements AutoCloseable {

    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private static final int NODE_TIMEOUT_MILLIS = 2000;

    private static final RedisNode.Launch LAUNCH = new RedisNode.Launch(List.of(),
            List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MILLIS),
                    "--cluster-replica-validity-factor", "0", "--cluster-allow-replica-migration", "no",
                    "--repl-diskless-sync-delay", "0"), // Redis 7 would wait 5 s for more replicas before a full sync
            "Ready to accept connections", ClusterFormation::freePort);

    private final List<RedisNode> nodes;

    private final List<List<RedisNode>> shards;

    private final Map<RedisNode, String> ids;

    private RedisCluster(List<RedisNode> nodes, List<List<RedisNode>> shards, Map<RedisNode, String> ids) {
        this.nodes = List.copyOf(nodes);
        this.shards = shards.stream().map(List::copyOf).toList();
        this.ids = Map.copyOf(ids);
    }

    /**
     * Starts a cluster of 3 masters without replicas and waits until every node reports {@code cluster_state:ok}.
     * @return the running cluster
     * @throws IllegalStateException when a node does not start or the cluster does not form within 30 s
     */
    public static RedisCluster start() {
        return start(3, 0);
    }

    /**
     * Starts a cluster and waits (up to 30 s) until every node reports {@code cluster_state:ok}, knows every other
     * node, sees each master with its slots, and every replica is in sync with its master.
     * @param masters how many masters, at least 3 (Redis Cluster needs a majority of masters to fail a node over)
     * @param replicasPerMaster replicas of each master, 0 or more; 1 where a failover is tested
     * @return the running cluster
     * @throws IllegalArgumentException when {@code masters} is below 3 or {@code replicasPerMaster} below 0
     * @throws IllegalStateException when a node does not start or the cluster does not form within 30 s (nodes
     * already started are stopped)
     */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        if (masters < 3 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("A cluster needs at least 3 masters and 0 or more replicas per master, "
                    + "was " + masters + " and " + replicasPerMaster);
        }
        List<RedisNode> started = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                started.add(RedisNode.launchUnready(RedisNode.createDirectory(), LAUNCH));
            }
            started.forEach(RedisNode::awaitReady);
            List<List<RedisNode>> shards = new ArrayList<>();
            for (int i = 0; i < masters; i++) {
                List<RedisNode> shard = new ArrayList<>(List.of(started.get(i)));
                shard.addAll(started.subList(masters + i * replicasPerMaster, masters + (i + 1) * replicasPerMaster));
                shards.add(shard);
            }
            Map<RedisNode, String> ids = ClusterFormation.form(started, masters, replicasPerMaster, SETTLE_TIMEOUT);
            RedisCluster cluster = new RedisCluster(started, shards, ids);
            cluster.awaitHealthy("form");
            return cluster;
        }
        catch (RuntimeException ex) {
            started.forEach(RedisNode::close);
            throw ex;
        }
    }

    /**
     * Returns the cluster as one Redlock node entry: {@code redis-cluster://} and every node's host and port, masters
     * first, e.g. {@code redis-cluster://127.0.0.1:41234,127.0.0.1:41235,127.0.0.1:41236}. It is this project's form
     * (Lettuce's {@code RedisURI} has no cluster scheme): seed nodes from which a cluster client learns the topology.
     * @return the URI
     */
    public String uri() {
        return this.nodes.stream().map(RedisNode::hostAndPort).collect(Collectors.joining(",", "redis-cluster://", ""));
    }

    /**
     * Returns every node, in start order: the masters, then the replicas of the first master, of the second, and so on.
     * Roles change with failovers; {@link #masters()} and {@link #replicasOf(RedisNode)} say who is what now.
     * @return an unmodifiable list
     */
    public List<RedisNode> nodes() {
        return this.nodes;
    }

    /**
     * Returns the nodes that serve slots now, as the cluster sees them, in the order of their slots (the first serves
     * slot 0). A killed master stays in the list until a replica of its shard takes over.
     * @return an unmodifiable list
     * @throws IllegalStateException when no node runs
     */
    public List<RedisNode> masters() {
        return view().slotOwners().stream().map((entry) -> byPort(entry.port())).toList();
    }

    /**
     * Returns the nodes that replicate {@code master} now, as the cluster sees them, in start order.
     * @param master a node of this cluster
     * @return an unmodifiable list, empty for a node that has no replica or is a replica itself
     * @throws IllegalArgumentException when the node is not one of this cluster's
     * @throws IllegalStateException when no node runs
     */
    public List<RedisNode> replicasOf(RedisNode master) {
        String id = idOf(master);
        ClusterView view = view();
        return this.nodes.stream().filter((node) -> view.byId(idOf(node))
                .map((entry) -> id.equals(entry.masterId())).orElse(false)).toList();
    }

    /**
     * Returns the master that serves {@code key}'s slot now ({@code CLUSTER KEYSLOT}, hash tags included).
     * @param key a Redis key
     * @return the master, e.g. to kill or fail over the shard that holds a lock
     * @throws IllegalStateException when no node runs or no node serves the slot
     */
    public RedisNode masterOf(String key) {
        RedisNode viewer = viewer();
        long slot = ClusterFormation.expect(viewer, Long.class, "CLUSTER", "KEYSLOT", key);
        ClusterView.Entry owner = view().ownerOf((int) slot).orElseThrow(() -> new IllegalStateException(
                "No node of " + this + " serves slot " + slot + " (of key '" + key + "')"));
        return byPort(owner.port());
    }

    /**
     * Fails {@code master}'s shard over to its first running replica with {@code CLUSTER FAILOVER FORCE} (the replica
     * takes over without the master's agreement, as when the master is unreachable) and waits (up to 30 s) until every
     * running node sees the replica as the master of the shard's slots and the old master, if it runs, as its replica.
     * @param master a master of this cluster
     * @return the promoted replica, now the master
     * @throws IllegalArgumentException when the node is not one of this cluster's or serves no slot now
     * @throws IllegalStateException when the master has no running replica, or the promotion is not seen in time
     */
    public RedisNode failover(RedisNode master) {
        if (!masters().contains(master)) {
            throw new IllegalArgumentException(master + " serves no slot now; masters() lists the nodes that do");
        }
        RedisNode replica = replicasOf(master).stream().filter((node) -> node.isRunning() && !node.isPaused())
                .findFirst().orElseThrow(() -> new IllegalStateException(master + " has no running replica to fail over"
                        + " to; start the cluster with RedisCluster.start(masters, 1)"));
        ClusterFormation.expect(replica, String.class, "CLUSTER", "FAILOVER", "FORCE");
        awaitPromotion(List.of(replica), master);
        return replica;
    }

    /**
     * Waits (up to 30 s) until a replica of {@code master}'s shard is the master of its slots on every running node,
     * e.g. after {@link #kill(RedisNode) killing} the master: the replicas notice after the node timeout (2 s) and
     * elect one of them.
     * @param master the master that was replaced or is to be
     * @return the node that took over
     * @throws IllegalArgumentException when the node is not one of this cluster's
     * @throws IllegalStateException when its shard has no other node, or no failover is seen in time
     */
    public RedisNode awaitFailover(RedisNode master) {
        idOf(master);
        List<RedisNode> candidates = this.shards.stream().filter((shard) -> shard.contains(master)).findFirst()
                .orElseThrow().stream().filter((node) -> node != master).toList();
        if (candidates.isEmpty()) {
            throw new IllegalStateException(master + " has no replica to take over; start the cluster with "
                    + "RedisCluster.start(masters, 1)");
        }
        return awaitPromotion(candidates, master);
    }

    /**
     * Kills one node with SIGKILL, as a crash would ({@link RedisNode#kill()}); {@link #reset()} restarts it.
     * @param node a node of this cluster
     * @throws IllegalArgumentException when the node is not one of this cluster's
     */
    public void kill(RedisNode node) {
        idOf(node);
        node.kill();
    }

    /**
     * Waits (up to 30 s) until the cluster is whole again, as {@link #start(int, int)} leaves it: every node runs and
     * reports {@code cluster_state:ok}, knows every other node without doubt, sees as many masters as it started with,
     * and, as a replica, is in sync with its master. Unlike {@link #reset()}, it undoes no fault and deletes no key: it
     * is the wait after a killed node was restarted on its own ({@link RedisNode#restart()}), which keeps its cluster
     * identity ({@code nodes.conf}) and so rejoins as a replica of the node that took its slots over.
     * @throws IllegalStateException when the cluster is not whole within 30 s, with the first problem found
     */
    public void awaitHealthy() {
        awaitHealthy("become whole");
    }

    /**
     * Undoes every fault and empties the cluster: killed nodes are restarted on their ports (empty, with their cluster
     * identity), paused ones resumed, cut-off ones healed; then, once the cluster is whole again (up to 30 s), every
     * master's keys are deleted ({@code FLUSHALL}, which the replicas follow). Roles stay as failovers left them.
     * @throws IllegalStateException when the cluster does not settle in time
     */
    public void reset() {
        for (RedisNode node : this.nodes) {
            if (!node.isRunning()) {
                node.restart();
            }
            else if (node.isPaused()) {
                node.resume();
            }
            node.heal();
        }
        awaitHealthy("settle after reset()");
        masters().forEach(RedisNode::flushAll);
    }

    /**
     * Stops every node (SIGKILL) and deletes their working directories.
     */
    @Override
    public void close() {
        this.nodes.forEach(RedisNode::close);
    }

    @Override
    public String toString() {
        return "RedisCluster" + this.nodes;
    }

    private RedisNode awaitPromotion(List<RedisNode> candidates, RedisNode master) {
        AtomicReference<@Nullable RedisNode> promoted = new AtomicReference<>();
        AtomicReference<String> problem = new AtomicReference<>("not checked yet");
        boolean done = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            for (RedisNode candidate : candidates) {
                String reason = ClusterHealth.promotionProblem(this.nodes, candidate, idOf(candidate), master,
                        idOf(master));
                if (reason == null) {
                    promoted.set(candidate);
                    return true;
                }
                problem.set(reason);
            }
            return false;
        });
        RedisNode result = promoted.get();
        if (!done || result == null) {
            throw new IllegalStateException("No replica of " + master + " took over on every node within "
                    + SETTLE_TIMEOUT.toSeconds() + " s: " + problem.get());
        }
        return result;
    }

    private void awaitHealthy(String goal) {
        int masters = this.shards.size();
        AtomicReference<@Nullable String> problem = new AtomicReference<>();
        boolean done = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            problem.set(ClusterHealth.healthProblem(this.nodes, masters));
            return problem.get() == null;
        });
        if (!done) {
            throw new IllegalStateException("The cluster " + this + " did not " + goal + " within "
                    + SETTLE_TIMEOUT.toSeconds() + " s: " + problem.get());
        }
    }

    private ClusterView view() {
        return ClusterHealth.view(viewer());
    }

    private RedisNode viewer() {
        return this.nodes.stream().filter((node) -> node.isRunning() && !node.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("No node of " + this + " runs; reset() restarts them"));
    }

    private String idOf(RedisNode node) {
        String id = this.ids.get(node);
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        return id;
    }

    private RedisNode byPort(int port) {
        return this.nodes.stream().filter((node) -> node.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("The cluster names 127.0.0.1:" + port + ", not a node of " + this));
    }

}
