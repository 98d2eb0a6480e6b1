package io.github.redlock.core;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The release messages that waiters listen to: every release publishes on its lock's channel on each node
 * (see {@code release.lua}), and a waiter in this JVM is woken as soon as any node delivers one, instead of
 * sleeping out its retry delay. One pub/sub connection per node, opened when the first waiter appears;
 * a channel is subscribed only while someone in this JVM waits on it. Messages are a hint: a waiter still
 * retries after its delay when none comes (a node down, a message lost, a key that expired unreleased).
 */
final class ReleaseMessages implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(ReleaseMessages.class.getName());

    /** How long after a failed connect the node's pub/sub connection is tried again. */
    private static final long RECONNECT_MILLIS = 1_000;

    private final List<RedisURI> uris;

    private final NodeConnector connector;

    private final Executor wakeExecutor;

    private final AtomicReferenceArray<StatefulRedisPubSubConnection<byte[], byte[]>> connections;

    private final AtomicBoolean opened = new AtomicBoolean();

    private volatile boolean closed;

    /** The waiters of each subscribed channel (by content); a channel is subscribed while it has any. */
    private final ConcurrentHashMap<ByteBuffer, Set<Runnable>> waiters = new ConcurrentHashMap<>();

    /**
     * @param wakeExecutor where waiters are woken: not an I/O thread, so that the attempts they send queue up
     * behind commands sent before them on each connection
     */
    ReleaseMessages(List<RedisURI> uris, NodeConnector connector, Executor wakeExecutor) {
        this.uris = uris;
        this.connector = connector;
        this.wakeExecutor = wakeExecutor;
        this.connections = new AtomicReferenceArray<>(uris.size());
    }

    /**
     * Wakes {@code waiter} on every release message of the channel until the returned subscription is closed.
     * @param channel the lock's release channel
     * @param waiter what to run on a message (on the wake executor; it must be cheap and not block)
     * @return the subscription, to close once the waiter stops waiting
     */
    Subscription subscribe(byte[] channel, Runnable waiter) {
        if (this.closed) {
            return () -> { };
        }
        openOnce();
        ByteBuffer name = ByteBuffer.wrap(channel);
        this.waiters.compute(name, (key, current) -> {
            Set<Runnable> set = (current != null) ? current : ConcurrentHashMap.newKeySet();
            if (current == null) {
                forEachConnection((connection) -> connection.async().subscribe(channel));
            }
            set.add(waiter);
            return set;
        });
        return () -> this.waiters.computeIfPresent(name, (key, current) -> {
            current.remove(waiter);
            if (!current.isEmpty()) {
                return current;
            }
            forEachConnection((connection) -> connection.async().unsubscribe(channel));
            return null;
        });
    }

    /** The number of channels subscribed now (for tests and the endpoint). */
    int channels() {
        return this.waiters.size();
    }

    private void openOnce() {
        if (this.opened.compareAndSet(false, true)) {
            for (int i = 0; i < this.uris.size(); i++) {
                open(i);
            }
        }
    }

    private void open(int index) {
        if (this.closed) {
            return;
        }
        CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> opening;
        try {
            opening = this.connector.connectPubSub(this.uris.get(index)).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            opening = CompletableFuture.failedFuture(ex);
        }
        opening.whenComplete((connection, failure) -> {
            if (failure != null) {
                if (failure instanceof UnsupportedOperationException || failure.getCause() instanceof UnsupportedOperationException) {
                    logger.log(System.Logger.Level.DEBUG, "No release messages from " + this.uris.get(index) + ": " + failure);
                    return; // the connector cannot open pub/sub connections: waiters retry after their delay
                }
                CompletableFuture.delayedExecutor(RECONNECT_MILLIS, TimeUnit.MILLISECONDS, this.wakeExecutor).execute(() -> open(index));
                return;
            }
            connection.addListener(new RedisPubSubAdapter<>() {

                @Override
                public void message(byte[] channel, byte[] message) {
                    wake(channel);
                }

            });
            this.connections.set(index, connection);
            if (this.closed) {
                connection.closeAsync();
                return;
            }
            // Channels that got waiters before the connection was there; subscribing twice is harmless.
            for (ByteBuffer name : this.waiters.keySet()) {
                byte[] channel = new byte[name.remaining()];
                name.duplicate().get(channel);
                connection.async().subscribe(channel);
            }
        });
    }

    /**
     * Wakes this JVM's waiters of a channel, as a release message from a node would: on this thread when it is
     * not an I/O thread (the release was just sent from it, so the waiters' attempts follow it on every
     * connection), else on the wake executor.
     */
    void wakeLocal(byte[] channel) {
        if (Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread) {
            wake(channel);
            return;
        }
        Set<Runnable> set = this.waiters.get(ByteBuffer.wrap(channel));
        if (set != null) {
            for (Runnable waiter : set) {
                waiter.run();
            }
        }
    }

    private void wake(byte[] channel) {
        Set<Runnable> set = this.waiters.get(ByteBuffer.wrap(channel));
        if (set != null) {
            for (Runnable waiter : set) {
                this.wakeExecutor.execute(waiter);
            }
        }
    }

    private void forEachConnection(java.util.function.Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> action) {
        for (int i = 0; i < this.connections.length(); i++) {
            StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.get(i);
            if (connection != null && connection.isOpen()) {
                try {
                    action.accept(connection);
                }
                catch (RuntimeException ex) {
                    // disconnected: Lettuce subscribes the connection's channels again when it reconnects
                }
            }
        }
    }

    @Override
    public void close() {
        this.closed = true;
        for (int i = 0; i < this.connections.length(); i++) {
            StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.getAndSet(i, null);
            if (connection != null) {
                connection.closeAsync();
            }
        }
    }

    /** A waiter's subscription to one channel; closing it ends the waiter's wake-ups. */
    @FunctionalInterface
    interface Subscription {

        void close();

    }

}
