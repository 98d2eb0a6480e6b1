package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * A Sentinel node's subscriptions to its sentinels' announcements of a failover of its master, each reported once, so
 * that the node drops its connection to the former master at once (its confirmation, {@link SentinelWatch}, would stop
 * it voting through it within its bound anyway). Two announcements count: {@code +promoted-slave} (the sentinel that
 * ran the failover saw the replica answer as the master) and {@code +switch-master} (every sentinel, once the failover
 * is over or once it learned of it from another). A sentinel that cannot be reached is tried again, backing off to two
 * seconds; Lettuce subscribes again on every reconnection of an established subscription.
 */
final class SentinelAnnouncements {

    private static final System.Logger logger = System.getLogger(SentinelAnnouncements.class.getName());

    private static final byte[] SWITCH_MASTER = "+switch-master".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] PROMOTED = "+promoted-slave".getBytes(StandardCharsets.US_ASCII);

    private static final Delay RETRY = Delay.exponential(java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(2), 2,
            TimeUnit.MILLISECONDS);

    private final NodeConnector connector;

    private final RedisURI node;

    private final String masterName;

    private final EventExecutorGroup scheduler;

    /** Told of each failover of this node's master, with the announcement's text. */
    private final Consumer<String> onFailover;

    private final List<StatefulRedisPubSubConnection<byte[], byte[]>> connections = new CopyOnWriteArrayList<>();

    /** The new master that the last announcement reported, so that its repeats are not reported again. */
    private final AtomicReference<@Nullable String> lastPromoted = new AtomicReference<>();

    private volatile boolean closed;

    SentinelAnnouncements(NodeConnector connector, RedisURI node, EventExecutorGroup scheduler, Consumer<String> onFailover) {
        this.connector = connector;
        this.node = node;
        this.masterName = String.valueOf(node.getSentinelMasterId());
        this.scheduler = scheduler;
        this.onFailover = onFailover;
    }

    /** Subscribes on every sentinel listed, in the background. */
    void start() {
        for (RedisURI sentinel : this.node.getSentinels()) {
            subscribe(sentinel, 0);
        }
    }

    private void subscribe(RedisURI sentinel, int failures) {
        if (this.closed) {
            return;
        }
        CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> attempt;
        try {
            attempt = this.connector.connectSentinel(this.node, sentinel).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            attempt = CompletableFuture.failedFuture(ex);
        }
        attempt.thenCompose((connection) -> {
            this.connections.add(connection);
            if (this.closed) {
                SentinelWatch.close(connection);
                return CompletableFuture.completedFuture(null);
            }
            connection.addListener(new RedisPubSubAdapter<>() {

                @Override
                public void message(byte[] channel, byte[] message) {
                    announced(channel, message);
                }

            });
            // Lettuce subscribes again on every reconnection of this connection.
            return connection.async().subscribe(SWITCH_MASTER, PROMOTED).toCompletableFuture().whenComplete((done, refused) -> {
                if (refused != null) { // tried again on a new connection
                    this.connections.remove(connection);
                    SentinelWatch.close(connection);
                }
            });
        }).whenComplete((subscribed, failure) -> {
            if (failure == null || this.closed) {
                return;
            }
            if (failure.getCause() instanceof UnsupportedOperationException || failure instanceof UnsupportedOperationException) {
                logger.log(System.Logger.Level.WARNING, "Redis node " + Uris.nodeName(this.node) + ": the connector opens no "
                        + "sentinel connections (NodeConnector.connectSentinel), so no majority of the sentinels can confirm which "
                        + "server is the master, and the node does not vote");
                return;
            }
            long delay = RETRY.createDelay(failures + 1).toMillis();
            this.scheduler.schedule(() -> subscribe(sentinel, failures + 1), delay, TimeUnit.MILLISECONDS);
        });
    }

    /**
     * Reports a failover once: every sentinel announces it, the one that ran it twice, some of them seconds later (they
     * learn of it from each other), and each repeat names the same new master; a later failover names another one.
     */
    void announced(byte[] channel, byte[] message) {
        String text = new String(message, StandardCharsets.UTF_8);
        String promoted = promotedBy(channel, text);
        if (promoted != null && !promoted.equals(this.lastPromoted.getAndSet(promoted))) {
            this.onFailover.accept(new String(channel, StandardCharsets.US_ASCII) + " " + text);
        }
    }

    /**
     * The new master's {@code ip:port} if an announcement is of a failover of this node's master, else null:
     * {@code +switch-master <name> <old ip> <old port> <new ip> <new port>}, {@code +promoted-slave slave <ip>:<port>
     * <ip> <port> @ <name> <master ip> <master port>}.
     */
    @Nullable String promotedBy(byte[] channel, String message) {
        String[] words = message.trim().split(" ");
        if (java.util.Arrays.equals(channel, SWITCH_MASTER)) {
            return (words.length >= 5 && words[0].equals(this.masterName)) ? words[3] + ":" + words[4] : null;
        }
        if (java.util.Arrays.equals(channel, PROMOTED) && words.length >= 6 && words[4].equals("@")) {
            return words[5].equals(this.masterName) ? words[2] + ":" + words[3] : null;
        }
        return null;
    }

    /** Closes every subscription, and any that opens later. */
    CompletableFuture<Void> close() {
        this.closed = true;
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        this.connections.forEach((connection) -> closing.add(SentinelWatch.close(connection)));
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

}
