package io.github.redlock.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.connection.RedlockConnectionFactories;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Health of the lock: UP while a quorum of nodes may vote (they answer PING, each within the node timeout,
 * and the lock counts them as voting: connected, checked, not quarantined after a restart), DOWN otherwise, with
 * each node's state in the details: {@code UP}, {@code DOWN: why}, {@code UP, not voting: why} (it answers, but
 * the lock's own connection is down or its check has not passed), or {@code QUARANTINED: why (votes again in …)}. Nodes are pinged at once, so a frozen node
 * costs one timeout, not one per node. A Redis Cluster node is not pinged: its state is the lock's own, which holds a
 * connection to each of its masters and checks them all. The {@code servers} detail lists the servers that answer for
 * a node where they differ from its name: a cluster node's masters and their hash slots, a Sentinel node's master.
 */
public class RedlockHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    private final RedlockConnectionFactories connections;

    private final Redlock redlock;

    private final int quorum;

    private final ExecutorService pings;

    /**
     * Creates the indicator.
     * @param connections the per-node connection factories
     * @param redlock the lock, which knows which nodes may vote and the quorum
     */
    public RedlockHealthIndicator(RedlockConnectionFactories connections, Redlock redlock) {
        super("Redlock health check failed");
        this.connections = connections;
        this.redlock = redlock;
        this.quorum = redlock.quorum();
        // Bounded: at most two pings per node at once; past that, the caller pings itself (still bounded by timeouts).
        int threads = Math.max(2, 2 * connections.factories().size());
        this.pings = new ThreadPoolExecutor(0, threads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
            Thread thread = new Thread(task, "redlock-health");
            thread.setDaemon(true);
            return thread;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        Map<String, NodeStatus> statuses = this.redlock.nodeStatuses();
        Map<String, LettuceConnectionFactory> factories = this.connections.factories();
        Map<String, CompletableFuture<String>> pings = new LinkedHashMap<>();
        // A node with a factory of its own is pinged; a Redis Cluster node (its masters' factories are the lock's, one per
        // master) is as the lock's own check of every master says.
        for (String node : statuses.keySet()) {
            LettuceConnectionFactory factory = factories.get(node);
            if (factory != null) {
                pings.put(node, CompletableFuture.supplyAsync(() -> ping(factory, this.connections.nodeTimeout()), this.pings));
            }
        }
        Map<String, String> nodes = new LinkedHashMap<>();
        Map<String, List<String>> servers = new LinkedHashMap<>();
        int reachable = 0;
        int voting = 0;
        for (Map.Entry<String, NodeStatus> entry : statuses.entrySet()) {
            NodeStatus status = entry.getValue();
            CompletableFuture<String> ping = pings.get(entry.getKey());
            String state;
            if (ping == null) {
                state = (status.state() == NodeStatus.State.DOWN) ? "DOWN: " + status.reason() : "UP";
            }
            else {
                try {
                    state = ping.get(5, TimeUnit.SECONDS); // each ping is bounded by its own timeouts
                }
                catch (Exception ex) {
                    state = "DOWN: no answer";
                }
            }
            if (state.equals("UP")) {
                reachable++;
                if (status.state() == NodeStatus.State.QUARANTINED) {
                    boolean forever = status.quarantinedFor().compareTo(Duration.ofDays(365)) > 0; // not an independent master
                    state = "QUARANTINED: " + status.reason()
                            + (forever ? "" : " (votes again in " + status.quarantinedFor().toSeconds() + " s)");
                }
                else if (status.state() == NodeStatus.State.DOWN) {
                    // Answers here, but the lock's own connection is down or has not been checked: no vote yet.
                    state = "UP, not voting: " + status.reason();
                }
                else {
                    voting++;
                }
            }
            nodes.put(entry.getKey(), state);
            if (!status.servers().isEmpty()) {
                servers.put(entry.getKey(), status.servers());
            }
        }
        builder = ((voting >= this.quorum) ? builder.up() : builder.down()).withDetail("quorum", this.quorum)
                .withDetail("reachable", reachable).withDetail("voting", voting).withDetail("nodes", nodes);
        if (!servers.isEmpty()) {
            builder.withDetail("servers", servers);
        }
    }

    /**
     * Pings one node: opening the connection, the first time, may take the connect timeout (a handshake on a loaded host
     * may take longer than the node timeout); the PING itself must be answered within the node timeout.
     */
    private static String ping(LettuceConnectionFactory factory, Duration nodeTimeout) {
        try (RedisConnection connection = factory.getConnection()) {
            @SuppressWarnings("unchecked")
            RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
            String reply = commands.ping().toCompletableFuture().get(nodeTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return "PONG".equalsIgnoreCase(reply) ? "UP" : "DOWN: answered " + reply;
        }
        catch (TimeoutException ex) {
            return "DOWN: no answer to PING within the node timeout (" + nodeTimeout.toMillis() + " ms)";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "DOWN: interrupted while pinging";
        }
        catch (ExecutionException | RuntimeException ex) {
            Throwable cause = ex;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            return "DOWN: " + cause.getMessage();
        }
    }

    @Override
    public void destroy() {
        this.pings.shutdownNow();
    }

}
