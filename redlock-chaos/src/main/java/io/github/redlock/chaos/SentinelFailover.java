package io.github.redlock.chaos;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisSentinelGroup;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

/**
 * The Sentinel group that is one of a run's nodes, and its {@link FaultKind#FAILOVER}: a failover in the hazardous
 * way. The replica is cut off from the master first (paused, and its replication link dropped), so that what the
 * master acknowledges from then on never reaches it; the master is then killed, and the sentinels promote the replica
 * without those writes. The killed server comes back empty as a replica of the new master, so that the group has a
 * replica again for the next failover.
 * <p>
 * The sentinels are told to fail over ({@code SENTINEL FAILOVER}) as soon as the master is killed, rather than left to
 * find it down after their {@code down-after-milliseconds} (2 s): a lease of the run lasts 2 s at most, and must still
 * be valid when the promoted replica votes for the hazard to matter. Every wait is bounded ({@link #TIMEOUT}).
 * <p>
 * Its {@link FaultKind#DEPOSED_MASTER} ({@link #failOverKeepingTheMaster}) fails over without killing anything: the
 * master is kept a master after the failover (it refuses the sentinels' {@code REPLICAOF}), as a master cut off from the
 * sentinels stays one, and is turned into the promoted one's replica only afterwards.
 */
final class SentinelFailover extends LossyFailover {

    private final RedisSentinelGroup group;

    /** Fails over the given group, which it closes with itself. */
    SentinelFailover(RedisSentinelGroup group) {
        this.group = group;
    }

    /** Starts a group of a master, a replica and three sentinels, settled. */
    static SentinelFailover start() {
        return new SentinelFailover(RedisSentinelGroup.start());
    }

    /** The group's node entry, {@code redis-sentinel://…#redlock}. */
    String uri() {
        return this.group.uri();
    }

    /** The group's servers and sentinels. */
    RedisSentinelGroup group() {
        return this.group;
    }

    /**
     * Fails the group over in the hazardous way, as the class describes, and returns when the killed server replicates
     * the new master again.
     * @param lagging runs while the replica is cut off from the master, before the master is killed: what is written to
     * the master meanwhile is missing on the promoted replica
     * @return what was done, for the run's fault log
     */
    String failOverLosingWrites(Runnable lagging) {
        awaitReady();
        RedisNode master = this.group.master();
        RedisNode replica = this.group.replicas().get(0);
        long killed = killWhileItsReplicaLags(master, replica, lagging, master::kill);
        forceFailover();
        RedisNode promoted = this.group.awaitFailover(master);
        long failedOver = System.nanoTime();
        master.restart("--replicaof", "127.0.0.1", Integer.toString(promoted.port()));
        await(() -> hasOnlineReplica(promoted), () -> "the restarted " + master + " did not replicate the new master " + promoted);
        return report(master.hostAndPort(), promoted, killed, failedOver, "");
    }

    /**
     * Fails the group over while its master goes on answering as a master, and returns when that deposed master
     * replicates the new one. Before the failover the master is made to refuse {@code REPLICAOF} and {@code SLAVEOF}
     * ({@code ACL SETUSER default -replicaof -slaveof}), so that the sentinels cannot demote it; {@code cut} runs, then
     * {@code SENTINEL FAILOVER} promotes the replica, and {@code deposed} runs while the former master still takes
     * writes beside the promoted one. Then (also when a step failed) the ACL is restored ({@code +@all}, what the
     * default user had), and the former master is told {@code REPLICAOF} the promoted one, so that the group has a
     * replica in sync for the next failover. Nothing is killed and no write is lost on the promoted replica: the hazard
     * is a client that still writes to the former master.
     * @param cut runs before the failover, the master still the master (e.g. a client loses its sentinels)
     * @param deposed runs after the failover, with the former master still a master and writable
     * @return what was done, for the run's fault log
     */
    String failOverKeepingTheMaster(Runnable cut, Runnable deposed) {
        awaitReady();
        RedisNode master = this.group.master();
        acl(master, "-replicaof", "-slaveof");
        long asked;
        long failedOver;
        long demoted;
        RedisNode promoted;
        boolean stillMaster;
        try {
            cut.run();
            asked = System.nanoTime();
            forceFailover();
            promoted = this.group.awaitFailover(master);
            failedOver = System.nanoTime();
            deposed.run();
            demoted = System.nanoTime();
            stillMaster = isMaster(master);
        }
        catch (RuntimeException ex) {
            try {
                acl(master, "+@all");
            }
            catch (RuntimeException notRestored) {
                ex.addSuppressed(notRestored);
            }
            throw ex;
        }
        acl(master, "+@all");
        if (!stillMaster) {
            throw new IllegalStateException("the deposed master " + master + " no longer answered as a master after "
                    + TimeUnit.NANOSECONDS.toMillis(demoted - failedOver) + " ms, although it refused REPLICAOF");
        }
        try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(master))) {
            connection.sync().replicaof("127.0.0.1", promoted.port());
        }
        await(() -> hasOnlineReplica(promoted), () -> "the deposed master " + master + " did not replicate the new master " + promoted);
        return "master " + master.hostAndPort() + " kept a master (REPLICAOF refused), " + promoted.hostAndPort() + " promoted after "
                + TimeUnit.NANOSECONDS.toMillis(failedOver - asked) + " ms; the deposed master answered as a master for "
                + TimeUnit.NANOSECONDS.toMillis(demoted - failedOver) + " ms after that, then became its replica in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - demoted) + " ms";
    }

    /** {@code ACL SETUSER default <rules>} on the server, which must answer OK. */
    private void acl(RedisNode server, String... rules) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add("default");
        for (String rule : rules) {
            args.add(rule);
        }
        String reply;
        try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(server))) {
            reply = connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
        }
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("ACL SETUSER default " + String.join(" ", rules) + " on " + server + " answered " + reply);
        }
    }

    private boolean isMaster(RedisNode server) {
        try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(server))) {
            return connection.sync().info("replication").contains("role:master");
        }
    }

    /**
     * Waits until the master has its replica online and every sentinel sees that replica in sync: a failover can then
     * promote it at once.
     */
    void awaitReady() {
        await(() -> hasOnlineReplica(this.group.master()) && sentinelsSeeTheReplicaInSync(),
                () -> "the Sentinel group " + this.group + " has no replica in sync that every sentinel knows");
    }

    @Override
    List<RedisNode> servers() {
        return this.group.servers();
    }

    @Override
    void closeServers() {
        this.group.close();
    }

    /** Tells a sentinel to fail over, again while it answers that no replica is fit yet (the resumed one may not be). */
    private void forceFailover() {
        RedisNode sentinel = this.group.sentinels().get(0);
        String[] last = { "nothing" };
        await(() -> {
            try (StatefulRedisSentinelConnection<String, String> connection = this.client.connectSentinel(uri(sentinel))) {
                last[0] = connection.sync().failover(this.group.masterName());
                return "OK".equals(last[0]);
            }
            catch (RuntimeException ex) {
                last[0] = ex.getMessage();
                if (last[0] != null && last[0].startsWith("INPROG")) {
                    return true; // the sentinels found the master down themselves: awaitFailover waits for them
                }
                return false;
            }
        }, () -> "SENTINEL FAILOVER " + this.group.masterName() + " on " + sentinel + " answered " + last[0]);
    }

    private boolean hasOnlineReplica(RedisNode master) {
        try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(master))) {
            String info = connection.sync().info("replication");
            return info.contains("role:master") && info.contains("connected_slaves:1") && info.contains("state=online");
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private boolean sentinelsSeeTheReplicaInSync() {
        for (RedisNode sentinel : this.group.sentinels()) {
            try (StatefulRedisSentinelConnection<String, String> connection = this.client.connectSentinel(uri(sentinel))) {
                List<Map<String, String>> replicas = connection.sync().replicas(this.group.masterName());
                if (replicas.stream().noneMatch((replica) -> "slave".equals(replica.get("flags"))
                        && "ok".equals(replica.get("master-link-status")))) {
                    return false;
                }
            }
            catch (RuntimeException ex) {
                return false;
            }
        }
        return true;
    }

}
