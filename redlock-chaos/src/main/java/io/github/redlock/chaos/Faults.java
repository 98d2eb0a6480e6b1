package io.github.redlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redlock.test.NetworkHost;
import io.github.redlock.test.ProcessCuts;
import io.github.redlock.test.RedisNode;

/**
 * Injects the faults of a run on its nodes and client processes, one at a time, and records each with its
 * window. The last node runs under {@code libfaketime} when it is installed, for the clock faults; without it,
 * those faults are skipped with a message. Nodes run without persistence, but for those a
 * {@link FaultKind#DURABLE_EMPTY_RESTART} restarted durable, until their next restart: which nodes run durable follows
 * from the schedule, so that a seed gives the same faults.
 * <p>
 * When the run may draw {@link FaultKind#FAILOVER}, one more node of the lock is a Sentinel group
 * ({@link SentinelFailover}), and when it may draw {@link FaultKind#CLUSTER_FAILOVER}, one more is a Redis Cluster
 * ({@link ClusterFailover}); the other faults leave them alone and act on the standalone nodes, but for the count of
 * a majority, which is over every node of the lock. When it may draw {@link FaultKind#DEPOSED_MASTER}, it has the
 * Sentinel group too, and one client process reaches two standalone nodes and the sentinels through proxies
 * ({@link ClientPaths}) that this class silences and restores. {@link FaultKind#ROLLING_RESTART_ALL} restarts each node
 * once every client process counts the one before again, as the processes say ({@link ClientVotes}). When it may draw
 * the partition faults ({@link FaultKind#PARTITION}, {@link FaultKind#PARTITIONED_RESTART}), every standalone node runs
 * in a network namespace of its own ({@link NetworkHost}) that each client process reaches over a link of its own, which
 * this class cuts and heals ({@link #partitions}).
 */
final class Faults {

    /** A durable configuration: every write logged and synced before it is answered. */
    private static final String[] DURABLE = { "--appendonly", "yes", "--appendfsync", "always" };

    /**
     * How long a restarted node may take to vote in every client beyond its quarantine when the run does not say when it does:
     * the clients' reconnection (backing off to 2 s), the check of the node (its answers time out after 2 s) and the
     * confirmation of their records of it, on a loaded machine.
     */
    private static final long CHECK_MILLIS = 5_000;

    /** How long beyond its quarantine the run waits at most for every client to count a restarted node again. */
    private static final long VOTE_BOUND_MILLIS = 20_000;

    /** The core's bound on a Sentinel node's confirmation by a majority of its sentinels (SentinelWatch), 2 s. */
    private static final long CONFIRMATION_BOUND_MILLIS = 2_000;

    private final List<RedisNode> nodes;

    /** Whether each node runs durable now: restarted by {@link FaultKind#DURABLE_EMPTY_RESTART} and not since. */
    private final boolean[] durable;

    private final List<Process> clients;

    /** The offset file libfaketime reads on every clock call of the last node, or null without libfaketime. */
    private final Path clockFile;

    private final long maxTtlMillis;

    /** The Sentinel group that is a node of the lock, or null when the run has none. */
    private final SentinelFailover group;

    /** The Redis Cluster that is a node of the lock, or null when the run has none. */
    private final ClusterFailover cluster;

    /** The proxied paths of the client that misses a {@link FaultKind#DEPOSED_MASTER}, or null when the run has none. */
    private final ClientPaths paths;

    /** What each client process counts, or null when the run does not say. */
    private final ClientVotes votes;

    private final List<History.Fault> injected = new ArrayList<>();

    private long clockOffsetSeconds;

    /** Each standalone node's host, by index, or null when the run makes no partitions. */
    private List<NetworkHost> hosts;

    /** The run's directory, where a client process finds the newcomers it is asked to start. */
    private Path directory;

    /** The cuts of single processes ({@link FaultKind#CLUSTER_PARTITION}), or null when the run makes none. */
    private ProcessCuts cuts;

    /** How many newcomers were started: each {@link FaultKind#PARTITIONED_RESTART} starts one. */
    private int newcomers;

    Faults(List<RedisNode> nodes, List<Process> clients, Path clockFile, long maxTtlMillis) {
        this(nodes, null, clients, clockFile, maxTtlMillis);
    }

    /**
     * Faults on standalone nodes and a Sentinel group.
     * @param nodes the standalone nodes of the lock
     * @param group the Sentinel group that is a node of the lock, or null
     */
    Faults(List<RedisNode> nodes, SentinelFailover group, List<Process> clients, Path clockFile, long maxTtlMillis) {
        this(nodes, group, null, clients, clockFile, maxTtlMillis);
    }

    /**
     * Faults on standalone nodes, a Sentinel group and a Redis Cluster.
     * @param nodes the standalone nodes of the lock
     * @param group the Sentinel group that is a node of the lock, or null
     * @param cluster the Redis Cluster that is a node of the lock, or null
     */
    Faults(List<RedisNode> nodes, SentinelFailover group, ClusterFailover cluster, List<Process> clients, Path clockFile,
            long maxTtlMillis) {
        this(nodes, group, cluster, null, clients, clockFile, maxTtlMillis);
    }

    /**
     * Faults on standalone nodes, a Sentinel group, a Redis Cluster, and the proxied paths of one client.
     * @param nodes the standalone nodes of the lock
     * @param group the Sentinel group that is a node of the lock, or null
     * @param cluster the Redis Cluster that is a node of the lock, or null
     * @param paths the proxied paths of {@link ClientPaths#CLIENT} to the group's sentinels and to standalone nodes, or null
     * @param maxTtlMillis the fleet's longest {@code maxTtl}: the quarantine that faults wait out is computed from it
     */
    Faults(List<RedisNode> nodes, SentinelFailover group, ClusterFailover cluster, ClientPaths paths, List<Process> clients,
            Path clockFile, long maxTtlMillis) {
        this(nodes, group, cluster, paths, null, clients, clockFile, maxTtlMillis);
    }

    /**
     * Faults on standalone nodes, a Sentinel group, a Redis Cluster, and the proxied paths of one client, that wait for what
     * the client processes count where a fault must ({@link FaultKind#ROLLING_RESTART_ALL}).
     * @param nodes the standalone nodes of the lock
     * @param group the Sentinel group that is a node of the lock, or null
     * @param cluster the Redis Cluster that is a node of the lock, or null
     * @param paths the proxied paths of {@link ClientPaths#CLIENT} to the group's sentinels and to standalone nodes, or null
     * @param votes what each client process counts, or null: a fault that waits for it then waits a fixed time instead
     * @param maxTtlMillis the fleet's longest {@code maxTtl}: the quarantine that faults wait out is computed from it
     */
    Faults(List<RedisNode> nodes, SentinelFailover group, ClusterFailover cluster, ClientPaths paths, ClientVotes votes,
            List<Process> clients, Path clockFile, long maxTtlMillis) {
        this.nodes = nodes;
        this.votes = votes;
        this.paths = paths;
        this.group = group;
        this.cluster = cluster;
        this.durable = new boolean[nodes.size()];
        this.clients = clients;
        this.clockFile = clockFile;
        this.maxTtlMillis = maxTtlMillis;
    }

    /**
     * Lets this run cut the clients' links to the standalone nodes, which run in these hosts.
     * @param nodeHosts each standalone node's host, in the order of the nodes
     * @param runDirectory the run's directory, where {@link ChaosClient} finds the newcomers it starts ({@link Newcomer})
     * @return this
     */
    Faults partitions(List<NetworkHost> nodeHosts, Path runDirectory) {
        this.hosts = List.copyOf(nodeHosts);
        this.directory = runDirectory;
        return this;
    }

    /**
     * Lets this run cut single processes from ports ({@link FaultKind#CLUSTER_PARTITION}).
     * @return this
     */
    Faults processCuts(ProcessCuts processCuts) {
        this.cuts = processCuts;
        return this;
    }

    /** The faults injected so far, in order. */
    List<History.Fault> injected() {
        return List.copyOf(this.injected);
    }

    /** Whether this run can inject a fault of that kind. */
    boolean supports(FaultKind kind) {
        return switch (kind) {
            case CLOCK_JUMP -> this.clockFile != null;
            case FAILOVER -> this.group != null;
            case CLUSTER_FAILOVER -> this.cluster != null;
            case DEPOSED_MASTER -> this.group != null && this.paths != null;
            case PARTITION -> this.hosts != null;
            case PARTITIONED_RESTART -> this.hosts != null && lockNodes() == this.nodes.size() && this.nodes.size() >= 5;
            case CLUSTER_PARTITION -> this.cluster != null && this.cuts != null;
            default -> true;
        };
    }

    /** Injects one fault and waits until it is over (the node back, the process resumed). */
    void inject(FaultKind kind, Random random) {
        long start = System.nanoTime();
        String detail = switch (kind) {
            case NODE_RESTART -> {
                int node = random.nextInt(this.nodes.size());
                long down = 100 + random.nextInt(900);
                restart(node, down);
                yield "node " + node + " killed, restarted empty after " + down + " ms";
            }
            case ROLLING_RESTART -> {
                List<Integer> order = distinct(random, majority());
                for (int node : order) {
                    restart(node, 0);
                }
                yield "nodes " + order + " killed and restarted empty one after another";
            }
            case EVERY_NODE_RESTART -> {
                List<Integer> order = distinct(random, this.nodes.size());
                for (int node : order) {
                    restart(node, 0);
                }
                yield "every node killed and restarted empty one after another, in the order " + order;
            }
            case DURABLE_EMPTY_RESTART -> durableEmptyRestart(random);
            case DURABLE_RESTART -> durableRestart(random);
            case NODE_PAUSE_SHORT -> {
                int node = random.nextInt(this.nodes.size());
                long paused = 20 + random.nextInt(60);
                pause(List.of(node), paused);
                yield "node " + node + " paused " + paused + " ms";
            }
            case NODE_PAUSE_LONG -> {
                int node = random.nextInt(this.nodes.size());
                long paused = this.maxTtlMillis + 500 + random.nextInt(1000);
                pause(List.of(node), paused);
                yield "node " + node + " paused " + paused + " ms";
            }
            case CLIENT_PAUSE -> clientPause(random);
            case CLOCK_JUMP -> clockJump(random);
            case MINORITY_COMBINED -> minorityCombined(random);
            case FAILOVER -> failover(random);
            case CLUSTER_FAILOVER -> clusterFailover(random);
            case DEPOSED_MASTER -> deposedMaster(random);
            case ROLLING_RESTART_ALL -> rollingRestartAll(random);
            case PARTITION -> partition(random);
            case PARTITIONED_RESTART -> partitionedRestart(random);
            case CLUSTER_PARTITION -> clusterPartition(random);
            case MAJORITY_DOWN -> {
                List<Integer> majority = distinct(random, majority());
                long paused = 500 + random.nextInt(1500);
                pause(majority, paused);
                yield "nodes " + majority + " paused " + paused + " ms";
            }
        };
        this.injected.add(new History.Fault(kind, start, System.nanoTime(), detail));
    }

    /** Resumes whatever a failed fault left paused or silent, so that the run can end. */
    void heal() {
        if (this.paths != null) {
            this.paths.restore();
        }
        if (this.cuts != null) {
            this.cuts.healAll();
        }
        if (this.hosts != null) {
            for (NetworkHost host : this.hosts) {
                for (int client = 0; client < host.clients(); client++) {
                    host.heal(client);
                }
            }
        }
        for (RedisNode node : this.nodes) {
            node.heal();
            if (node.isPaused()) {
                node.resume();
            }
            if (!node.isRunning()) {
                node.restart();
                this.durable[this.nodes.indexOf(node)] = false;
            }
        }
        if (this.group != null) {
            this.group.heal();
        }
        if (this.cluster != null) {
            this.cluster.heal();
        }
        for (Process client : this.clients) {
            if (client.isAlive()) {
                signal(client.pid(), "CONT");
            }
        }
    }

    /** Pauses a client process (SIGSTOP of its JVM) for longer than the longest ttl, while its threads hold locks. */
    private String clientPause(Random random) {
        int client = random.nextInt(this.clients.size());
        long paused = this.maxTtlMillis + 500 + random.nextInt(1000);
        signal(this.clients.get(client).pid(), "STOP");
        sleep(paused);
        signal(this.clients.get(client).pid(), "CONT");
        return "client " + client + " paused " + paused + " ms";
    }

    /** Moves the clock of the faked node forward past the longest ttl, and waits while its keys expire early. */
    private String clockJump(Random random) {
        long jump = (this.maxTtlMillis + 999) / 1000 + 1 + random.nextInt(3);
        this.clockOffsetSeconds += jump;
        writeClock();
        sleep(this.maxTtlMillis); // the window in which keys of the jumped node expire early
        return "clock of node " + (this.nodes.size() - 1) + " jumped " + jump + " s forward";
    }

    /** Restarts one node empty while another is paused: two nodes out at once, a minority of five. */
    private String minorityCombined(Random random) {
        List<Integer> two = distinct(random, 2);
        this.nodes.get(two.get(1)).pause();
        try {
            restart(two.get(0), 300 + random.nextInt(500));
        }
        finally {
            this.nodes.get(two.get(1)).resume();
        }
        return "node " + two.get(0) + " restarted empty while node " + two.get(1) + " was paused";
    }

    /**
     * Fails the Sentinel group over while its replica lags ({@link SentinelFailover#failOverLosingWrites}), with as many
     * standalone nodes cut off from the clients meanwhile as may be out beside the group (two of five): the locks taken
     * then hold exactly a bare majority, the group's master among it, so that a promoted replica without their keys
     * would leave a majority free. The cut-off nodes come back before the master is killed.
     */
    private String failover(Random random) {
        List<Integer> cut = distinct(random, lockNodes() - majority());
        long lagMillis = 300 + random.nextInt(500);
        String detail = this.group.failOverLosingWrites(() -> outFor(cut, lagMillis, RedisNode::cutOff, RedisNode::heal));
        return "nodes " + cut + " cut off from the clients for " + lagMillis + " ms while the group's replica lagged; " + detail;
    }

    /**
     * Fails a shard of the Redis Cluster over while its replica lags ({@link ClusterFailover#failOverLosingWrites}), with
     * standalone nodes cut off from the clients meanwhile as {@link #failover} does: the locks taken then hold a bare
     * majority with the cluster's master among it. The lag is longer than a Sentinel group's (0.6 to 1.4 s rather than 0.3
     * to 0.8 s): only the locks whose keys the failed shard serves are at stake, about a third of them, and with the
     * shorter lag too few were taken in it for a control to find the hazard reliably.
     */
    private String clusterFailover(Random random) {
        List<Integer> cut = distinct(random, lockNodes() - majority());
        long lagMillis = 600 + random.nextInt(800);
        String detail = this.cluster.failOverLosingWrites(random, () -> outFor(cut, lagMillis, RedisNode::cutOff, RedisNode::heal));
        return "nodes " + cut + " cut off from the clients for " + lagMillis + " ms while a cluster replica lagged; " + detail;
    }

    /**
     * {@link FaultKind#CLUSTER_PARTITION}: a client process drawn and the master of a locked key's shard cut off together
     * ({@link ClusterFailover#cutOffWithItsMaster}), the client from two standalone nodes too, for a quarantine, the
     * confirmation bound and 6 to 8 s after the promotion of the master's replica: the other clients count the promoted
     * replica some 5 s after it (they find the new view, check it, and wait out its quarantine), and only a third of the
     * keys are the cut-off shard's, so the cut-off client has a few seconds beside them to lock one of those.
     */
    private String clusterPartition(Random random) {
        int client = random.nextInt(this.clients.size());
        List<Integer> cut = distinct(random, lockNodes() - majority());
        int[] ports = cut.stream().mapToInt((node) -> this.nodes.get(node).port()).toArray();
        long holdMillis = quarantineMillis() + CONFIRMATION_BOUND_MILLIS + 6_000 + random.nextInt(2_000);
        String detail = this.cluster.cutOffWithItsMaster(random, this.cuts, this.clients.get(client).pid(), ports, holdMillis);
        return "client " + client + " cut off from nodes " + cut + " and from every cluster server but a master; " + detail;
    }

    /**
     * Fails the Sentinel group over while {@link ClientPaths#CLIENT} misses it and its master stays a master
     * ({@link SentinelFailover#failOverKeepingTheMaster}): the client's paths to the sentinels and to two standalone
     * nodes go silent first, and come back once the other clients may have counted the promoted replica for 4 to 6 s:
     * its quarantine (the fleet's longest {@code maxTtl}, drift and a second) and the sentinels' confirmation bound (2 s)
     * after the failover, plus that time, in which the cut-off client keeps trying through the deposed master. (With 3
     * to 5 s, the control found 5 to 27 overlaps in three runs of one fault each; the longer window makes a miss rarer.)
     */
    private String deposedMaster(Random random) {
        long deposedMillis = quarantineMillis() + CONFIRMATION_BOUND_MILLIS + 4_000 + random.nextInt(2_000);
        try {
            String detail = this.group.failOverKeepingTheMaster(this.paths::silence, () -> {
                sleep(deposedMillis);
                this.paths.restore();
            });
            return "client " + ClientPaths.CLIENT + "'s paths to the sentinels and to nodes " + this.paths.cutNodes() + " silent from "
                    + "before the failover until " + deposedMillis + " ms after it; " + detail;
        }
        finally {
            this.paths.restore();
        }
    }

    /**
     * Restarts every standalone node empty, one after another, each once every client process counts the one before again
     * and a ttl more: see {@link FaultKind#ROLLING_RESTART_ALL}. The detail lists when each node was restarted
     * ({@link History.Fault#restarts}) and how long after its restart every client counted it again.
     */
    private String rollingRestartAll(Random random) {
        List<Integer> order = distinct(random, this.nodes.size());
        long start = System.nanoTime();
        List<Long> restarts = new ArrayList<>();
        List<String> counted = new ArrayList<>();
        for (int node : order) {
            long restarted = System.nanoTime();
            restarts.add(TimeUnit.NANOSECONDS.toMillis(restarted - start));
            restart(node, 0);
            counted.add(awaitVoting(node, restarted));
            // Two extensions at least of a lease extended automatically (each when half its ttl is left): the first that
            // follows the node's vote writes the lease there again, and one more may do it if a contender's attempt held
            // the key there for a moment.
            sleep(this.maxTtlMillis + 1_000);
        }
        return "every node killed and restarted empty one after another, in the order " + order + ", each once every client "
                + "counted the one before again and " + (this.maxTtlMillis + 1_000) + " ms more; " + History.Fault.restarts(restarts)
                + "; counted again by every client after " + String.join(", ", counted) + " ms";
    }

    /**
     * Waits until every client process counts a restarted node again, at most its quarantine and {@link #VOTE_BOUND_MILLIS};
     * without {@link ClientVotes}, waits its quarantine and {@link #CHECK_MILLIS}.
     * @return how long after {@code restarted} every client counted it, in ms, or why that is not known
     */
    private String awaitVoting(int node, long restarted) {
        if (this.votes == null) {
            sleep(quarantineMillis() + CHECK_MILLIS);
            return "?";
        }
        long millis = this.votes.awaitVoting(node, restarted, quarantineMillis() + VOTE_BOUND_MILLIS);
        return (millis >= 0) ? Long.toString(millis) : "(not within " + (quarantineMillis() + VOTE_BOUND_MILLIS) + ")";
    }

    /**
     * Cuts one client process's links to some standalone nodes (one to all) while the others reach them, for 0.2 s to
     * two longest ttls and a second, restarting one standalone node empty halfway through in half of them.
     */
    private String partition(Random random) {
        int client = random.nextInt(this.clients.size());
        List<Integer> cut = distinct(random, 1 + random.nextInt(this.nodes.size()));
        long millis = 200 + random.nextInt((int) (2 * this.maxTtlMillis + 800));
        int restarted = random.nextBoolean() ? random.nextInt(this.nodes.size()) : -1;
        try {
            cut.forEach((node) -> this.hosts.get(node).cut(client));
            sleep(millis / 2);
            if (restarted >= 0) {
                restart(restarted, 0);
            }
            sleep(millis - millis / 2);
        }
        finally {
            cut.forEach((node) -> this.hosts.get(node).heal(client));
        }
        return "client " + client + " cut off from nodes " + cut + " for " + millis + " ms"
                + ((restarted >= 0) ? ", node " + restarted + " restarted empty halfway" : "");
    }

    /**
     * The read-quorum hole ({@link FaultKind#PARTITIONED_RESTART}): a minority {@code D} killed while the clients lock on
     * the rest, {@code M}; one client cut off from all of {@code M} but {@code v}; {@code D} back empty and {@code v}
     * restarted empty at once; a newcomer Redlock started in that client, locking through {@code v} and {@code D} for two
     * longest ttls and a quarantine; then the links back.
     */
    private String partitionedRestart(Random random) {
        int client = random.nextInt(this.clients.size());
        List<Integer> order = distinct(random, this.nodes.size());
        List<Integer> down = order.subList(0, this.nodes.size() - majority());
        int voter = order.get(down.size());
        List<Integer> cut = order.subList(down.size() + 1, order.size());
        long lockedMillis = 300 + random.nextInt(500);
        long newcomerMillis = 2 * this.maxTtlMillis + quarantineMillis();
        try {
            down.forEach((node) -> this.nodes.get(node).kill());
            sleep(lockedMillis); // the clients lock on M meanwhile, and record M's processes on M only
            cut.forEach((node) -> this.hosts.get(node).cut(client));
            this.nodes.get(voter).kill();
            for (int node : down) {
                this.nodes.get(node).restart();
                this.durable[node] = false;
            }
            this.nodes.get(voter).restart();
            this.durable[voter] = false;
            Newcomer.start(this.directory, client, ++this.newcomers, newcomerMillis);
            sleep(newcomerMillis);
        }
        finally {
            cut.forEach((node) -> this.hosts.get(node).heal(client));
        }
        return "nodes " + down + " killed, " + lockedMillis + " ms later client " + client + " cut off from nodes " + cut + ", nodes " + down
                + " and " + voter + " restarted empty, and newcomer " + this.newcomers + " of client " + client + " locking through "
                + voter + " and " + down + " for " + newcomerMillis + " ms";
    }

    /** The restart quarantine of the fleet's longest {@code maxTtl}, as a client computes it: {@code maxTtl}, drift, a second. */
    private long quarantineMillis() {
        return this.maxTtlMillis + this.maxTtlMillis / 100 + 2 + 1_000;
    }

    /** How many nodes the lock has: the standalone ones, the Sentinel group and the Redis Cluster, if any. */
    private int lockNodes() {
        return this.nodes.size() + ((this.group != null) ? 1 : 0) + ((this.cluster != null) ? 1 : 0);
    }

    /** A majority of the lock's nodes. */
    private int majority() {
        return lockNodes() / 2 + 1;
    }

    /**
     * Restarts a majority of the nodes empty one after another under the durable configuration, which each keeps
     * until its next restart.
     */
    private String durableEmptyRestart(Random random) {
        List<Integer> order = distinct(random, majority());
        for (int node : order) {
            this.nodes.get(node).restart(DURABLE);
            this.durable[node] = true;
        }
        return "nodes " + order + " killed and restarted empty one after another, with appendonly yes, appendfsync always";
    }

    /** Crashes a node that runs durable (any node when none does) and lets it recover from its files. */
    private String durableRestart(Random random) {
        List<Integer> candidates = durableNodes();
        boolean kept = !candidates.isEmpty();
        int node = kept ? candidates.get(random.nextInt(candidates.size())) : random.nextInt(this.nodes.size());
        long down = 100 + random.nextInt(900);
        this.nodes.get(node).kill();
        sleep(down);
        this.nodes.get(node).restartKeepingData(kept ? DURABLE : new String[0]);
        return "node " + node + " killed, restarted from its files after " + down + " ms: " + (kept ? "it runs durable, and came back "
                + "with its data" : "no node runs durable; it persisted nothing, and came back empty");
    }

    /** Restarts a node empty, as the harness runs nodes: without persistence, whatever it ran with before. */
    private void restart(int node, long downMillis) {
        this.nodes.get(node).kill();
        sleep(downMillis);
        this.nodes.get(node).restart();
        this.durable[node] = false;
    }

    private List<Integer> durableNodes() {
        List<Integer> durableNodes = new ArrayList<>();
        for (int i = 0; i < this.nodes.size(); i++) {
            if (this.durable[i]) {
                durableNodes.add(i);
            }
        }
        return durableNodes;
    }

    private void pause(List<Integer> which, long millis) {
        outFor(which, millis, RedisNode::pause, RedisNode::resume);
    }

    /** Takes the nodes out ({@code out}) for {@code millis}, then brings back ({@code back}) every one that went out. */
    private void outFor(List<Integer> which, long millis, Consumer<RedisNode> out, Consumer<RedisNode> back) {
        List<RedisNode> taken = new ArrayList<>();
        try {
            for (int node : which) {
                out.accept(this.nodes.get(node));
                taken.add(this.nodes.get(node));
            }
            sleep(millis);
        }
        finally {
            taken.forEach(back);
        }
    }

    private void writeClock() {
        try {
            Files.writeString(this.clockFile, "+" + this.clockOffsetSeconds + "s\n", StandardCharsets.US_ASCII);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot move the clock of the faked node", ex);
        }
    }

    private List<Integer> distinct(Random random, int count) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < this.nodes.size(); i++) {
            all.add(i);
        }
        java.util.Collections.shuffle(all, random);
        return List.copyOf(all.subList(0, count));
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot send SIG" + signal + " to " + pid, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while injecting a fault", ex);
        }
    }

}
