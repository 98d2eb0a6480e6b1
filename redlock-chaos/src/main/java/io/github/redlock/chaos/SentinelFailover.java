package io.github.redlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisSentinelGroup;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
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
 */
final class SentinelFailover implements AutoCloseable {

    /** The longest any step of a failover may take before the fault fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final long POLL_MILLIS = 50;

    private final RedisSentinelGroup group;

    private final RedisClient client = RedisClient.create();

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
        replica.pause();
        try {
            dropReplicas(master);
            lagging.run();
            master.kill();
        }
        finally {
            replica.resume();
        }
        long killed = System.nanoTime();
        forceFailover();
        RedisNode promoted = this.group.awaitFailover(master);
        long failedOver = System.nanoTime();
        master.restart("--replicaof", "127.0.0.1", Integer.toString(promoted.port()));
        await(() -> hasOnlineReplica(promoted), () -> "the restarted " + master + " did not replicate the new master " + promoted);
        return "master " + master.hostAndPort() + " killed while its replica lagged, " + promoted.hostAndPort() + " promoted after "
                + TimeUnit.NANOSECONDS.toMillis(failedOver - killed) + " ms; the killed server back empty as its replica after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failedOver) + " ms";
    }

    /**
     * Waits until the master has its replica online and every sentinel sees that replica in sync: a failover can then
     * promote it at once.
     */
    void awaitReady() {
        await(() -> hasOnlineReplica(this.group.master()) && sentinelsSeeTheReplicaInSync(),
                () -> "the Sentinel group " + this.group + " has no replica in sync that every sentinel knows");
    }

    /** Resumes and restarts whatever a failed failover left paused or down, so that the run can end. */
    void heal() {
        for (RedisNode server : this.group.servers()) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isRunning()) {
                server.restart();
            }
        }
    }

    @Override
    public void close() {
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        this.group.close();
    }

    /** Drops the master's replication links ({@code CLIENT KILL TYPE slave}): the paused replica hears no more. */
    private void dropReplicas(RedisNode master) {
        try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(master))) {
            connection.sync().clientKill(KillArgs.Builder.typeSlave());
        }
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

    /** The node's URI with a command timeout of 2 s: a paused or killed server fails a step, never hangs it. */
    private static RedisURI uri(RedisNode node) {
        RedisURI uri = RedisURI.create(node.uri());
        uri.setTimeout(Duration.ofSeconds(2));
        return uri;
    }

    /** Polls every {@link #POLL_MILLIS} until the condition holds, or fails with the message after {@link #TIMEOUT}. */
    private static void await(BooleanSupplier condition, Supplier<String> failure) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(failure.get() + " within " + TIMEOUT.toSeconds() + " s");
            }
            Faults.sleep(POLL_MILLIS);
        }
    }

}
