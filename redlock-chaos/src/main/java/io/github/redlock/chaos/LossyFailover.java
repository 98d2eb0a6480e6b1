package io.github.redlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.redlock.test.RedisNode;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * What the two failover faults share ({@link SentinelFailover} on a Sentinel group, {@link ClusterFailover} on a shard
 * of a Redis Cluster): the hazardous way to fail over, in which a master's replica is cut off (paused, and its
 * replication link dropped with {@code CLIENT KILL TYPE replica}) while the run writes to the master, then the master is
 * killed, so that the replica is promoted without those writes; the fault log's line; and the healing and closing of
 * the node's servers. Every wait is bounded by {@link #TIMEOUT}.
 */
abstract class LossyFailover implements AutoCloseable {

    /** The longest any step of a failover may take before the fault fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** How often a wait asks again. */
    static final long POLL_MILLIS = 50;

    /** The client of the fault's own commands, each on a connection of its own. */
    final RedisClient client = RedisClient.create();

    /** The node's servers (and sentinels), which {@link #heal()} brings back. */
    abstract List<RedisNode> servers();

    /** Stops the node's servers; called once, by {@link #close()}. */
    abstract void closeServers();

    /**
     * Kills the master while its replica lags: the replica is paused and cut off, {@code lagging} runs (what it writes to
     * the master never reaches the replica), {@code kill} kills the master, and the replica is resumed.
     * @return when the master was killed ({@link System#nanoTime()})
     */
    final long killWhileItsReplicaLags(RedisNode master, RedisNode replica, Runnable lagging, Runnable kill) {
        replica.pause();
        try {
            try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(master))) {
                connection.sync().clientKill(KillArgs.Builder.typeSlave());
            }
            lagging.run();
            kill.run();
        }
        finally {
            replica.resume();
        }
        return System.nanoTime();
    }

    /**
     * The fault log's line of a failover that is over: the killed server is back, empty, as a replica of the promoted one.
     * @param master the killed master, as the line names it
     * @param killed when it was killed ({@link System#nanoTime()})
     * @param failedOver when the promoted replica was seen as the master
     * @param note what to add after the promotion's time, or an empty string
     */
    static String report(String master, RedisNode promoted, long killed, long failedOver, String note) {
        return "master " + master + " killed while its replica lagged, " + promoted.hostAndPort() + " promoted after "
                + TimeUnit.NANOSECONDS.toMillis(failedOver - killed) + " ms" + note + "; the killed server back empty as its replica after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failedOver) + " ms";
    }

    /** Resumes and restarts whatever a failed failover left paused or down, so that the run can end. */
    void heal() {
        for (RedisNode server : servers()) {
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
        closeServers();
    }

    /** The node's URI with a command timeout of 2 s: a paused or killed server fails a step, never hangs it. */
    static RedisURI uri(RedisNode node) {
        RedisURI uri = RedisURI.create(node.uri());
        uri.setTimeout(Duration.ofSeconds(2));
        return uri;
    }

    /** Polls every {@link #POLL_MILLIS} until the condition holds, or fails with the message after {@link #TIMEOUT}. */
    static void await(BooleanSupplier condition, Supplier<String> failure) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(failure.get() + " within " + TIMEOUT.toSeconds() + " s");
            }
            Faults.sleep(POLL_MILLIS);
        }
    }

}
