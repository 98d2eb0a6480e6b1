package io.github.redlock.health;

import java.time.Duration;
import java.util.LinkedHashMap;
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
 * costs one timeout, not one per node.
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
        Map<String, CompletableFuture<String>> pings = new LinkedHashMap<>();
        this.connections.factories().forEach((node, factory) -> pings.put(node,
                CompletableFuture.supplyAsync(() -> ping(factory, this.connections.nodeTimeout()), this.pings)));
        Map<String, NodeStatus> statuses = this.redlock.nodeStatuses();
        Map<String, String> nodes = new LinkedHashMap<>();
        int reachable = 0;
        int voting = 0;
        for (Map.Entry<String, CompletableFuture<String>> ping : pings.entrySet()) {
            String state;
            try {
                state = ping.getValue().get(5, TimeUnit.SECONDS); // each ping is bounded by its own timeouts
            }
            catch (Exception ex) {
                state = "DOWN: no answer";
            }
            NodeStatus status = statuses.get(ping.getKey());
            if (state.equals("UP")) {
                reachable++;
                if (status == null) {
                    state = "UP, not voting: not one of the lock's nodes";
                }
                else if (status.state() == NodeStatus.State.QUARANTINED) {
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
            nodes.put(ping.getKey(), state);
        }
        ((voting >= this.quorum) ? builder.up() : builder.down()).withDetail("quorum", this.quorum)
                .withDetail("reachable", reachable).withDetail("voting", voting).withDetail("nodes", nodes);
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
