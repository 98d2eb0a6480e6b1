package io.github.redlock.core.internal.release;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.internal.support.OncePerMinute;
import io.github.redlock.core.internal.support.Uris;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.jspecify.annotations.Nullable;

/**
 * The release messages that waiters listen to: a release publishes its lease's token on its lock's channel on each
 * node where another client waits for the lock (was refused it recently, or is queued for it: see {@code release.lua}),
 * and a waiter in this JVM is woken as soon as any node delivers one,
 * instead of sleeping out its retry delay. A waiter listens locally from its first attempt (a release in this
 * JVM wakes it without a round trip: {@link #wakeLocal}) and on the nodes from its first refusal, so that a
 * caller that gets the lock at once costs no subscription. One pub/sub connection per node, opened when the
 * first waiter appears; a channel is subscribed only while someone in this JVM waits on it, and subscribed again
 * every {@link #RESUBSCRIBE_MILLIS} ms while it is (a SUBSCRIBE rejected while a connection was down is not
 * retried by Lettuce). Messages are a hint: a waiter still retries after its delay when none comes.
 * <p>
 * Most of it is the subscription's life: every change of a channel's waiters happens in the
 * channel map's compute functions, so that a SUBSCRIBE and the UNSUBSCRIBE of the last waiter never cross, and a
 * connection that opens meanwhile still subscribes what it missed.
 */
public final class ReleaseMessages implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(ReleaseMessages.class.getName());

    /** Warns of nodes that refuse the subscriptions, at most once a minute. */
    private final OncePerMinute refusals = new OncePerMinute(logger);

    /** How long after a failed connect the node's pub/sub connection is tried again. */
    private static final long RECONNECT_MILLIS = 1_000;

    /** How often the channels with waiters are subscribed again. */
    static final long RESUBSCRIBE_MILLIS = 2_000;

    private final List<RedisURI> uris;

    private final NodeConnector connector;

    private final Executor wakeExecutor;

    private final EventExecutorGroup scheduler;

    private final AtomicReferenceArray<StatefulRedisPubSubConnection<byte[], byte[]>> connections;

    private final AtomicBoolean opened = new AtomicBoolean();

    private volatile boolean closed;

    private volatile @Nullable ScheduledFuture<?> resubscribe;

    /** Each channel's waiters, by content; changed only inside the map's compute functions. */
    private final ConcurrentHashMap<ByteBuffer, Channel> channels = new ConcurrentHashMap<>();

    /**
     * @param wakeExecutor where waiters are woken on a message: not an I/O thread, so that the attempts they send
     * queue up behind commands sent before them on each connection
     * @param scheduler runs the reconnects and the periodic subscription
     */
    public ReleaseMessages(List<RedisURI> uris, NodeConnector connector, Executor wakeExecutor, EventExecutorGroup scheduler) {
        this.uris = uris;
        this.connector = connector;
        this.wakeExecutor = wakeExecutor;
        this.scheduler = scheduler;
        this.connections = new AtomicReferenceArray<>(uris.size());
    }

    /**
     * Wakes {@code waiter} on every release of the channel made in this JVM, and, once
     * {@link Subscription#onNodes()} was called, on every release message from a node, until the returned
     * subscription is closed.
     * @param channel the lock's release channel
     * @param waiter what to run with the released lease's token (cheap, non-blocking)
     * @return the subscription, to close once the waiter stops waiting
     */
    Subscription listen(byte[] channel, Waiter waiter) {
        ByteBuffer name = ByteBuffer.wrap(channel);
        this.channels.compute(name, (key, current) -> {
            Channel entry = (current != null) ? current : new Channel(channel);
            entry.waiters.add(waiter);
            return entry;
        });
        return new Subscription() {

            /** 0: listening in this JVM, 1: on the nodes too, 2: closed; changed inside the map's compute functions. */
            private final java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public void onNodes() {
                if (this.state.get() == 0 && !ReleaseMessages.this.closed) {
                    subscribe(name, this.state);
                }
            }

            @Override
            public void close() {
                ReleaseMessages.this.channels.computeIfPresent(name, (key, entry) -> {
                    int previous = this.state.getAndSet(2);
                    if (previous == 2) {
                        return entry;
                    }
                    entry.waiters.remove(waiter);
                    if (previous == 1 && --entry.onNodes == 0) {
                        forEachConnection((connection) -> connection.async().unsubscribe(entry.channel));
                    }
                    return entry.waiters.isEmpty() ? null : entry;
                });
            }

        };
    }

    /**
     * Wakes {@code waiter} on every release of any of the channels, as {@link #listen(byte[], Waiter)} does for one
     * (a lock on several keys waits for any of them).
     */
    public Subscription listenAll(byte[][] channels, Waiter waiter) {
        if (channels.length == 1) {
            return listen(channels[0], waiter);
        }
        List<Subscription> each = new java.util.ArrayList<>(channels.length);
        for (byte[] channel : channels) {
            each.add(listen(channel, waiter));
        }
        return new Subscription() {

            @Override
            public void onNodes() {
                each.forEach(Subscription::onNodes);
            }

            @Override
            public void close() {
                each.forEach(Subscription::close);
            }

        };
    }

    /**
     * Moves one subscription from listening in this JVM to listening on the nodes too, unless it was closed
     * meanwhile: in the map's compute function, so in order with its close and with the channel's other changes.
     */
    private void subscribe(ByteBuffer name, java.util.concurrent.atomic.AtomicInteger state) {
        openOnce();
        boolean[] missing = new boolean[this.connections.length()];
        this.channels.computeIfPresent(name, (key, entry) -> {
            if (state.compareAndSet(0, 1) && entry.onNodes++ == 0) {
                for (int i = 0; i < missing.length; i++) {
                    StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.get(i);
                    missing[i] = connection == null;
                    if (connection != null) {
                        subscribeTo(connection, i, entry.channel);
                    }
                }
            }
            return entry;
        });
        // A connection that opened meanwhile may have looked at the channels before this one was added.
        for (int i = 0; i < missing.length; i++) {
            StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.get(i);
            if (missing[i] && connection != null) {
                subscribeOn(connection, name);
            }
        }
    }

    /** Subscribes one connection to a channel if it still has waiters on the nodes; in order with unsubscribes. */
    private void subscribeOn(StatefulRedisPubSubConnection<byte[], byte[]> connection, ByteBuffer name) {
        int index = indexOf(connection);
        this.channels.computeIfPresent(name, (key, entry) -> {
            if (entry.onNodes > 0) {
                subscribeTo(connection, index, entry.channel); // twice is harmless
            }
            return entry;
        });
    }

    /**
     * Subscribes a node's connection to a channel; a node that refuses it (an ACL without the command or the channel)
     * is named in a warning, at most once a minute: its releases do not wake the waiters of this JVM, which retry.
     */
    private void subscribeTo(StatefulRedisPubSubConnection<byte[], byte[]> connection, int index, byte[] channel) {
        connection.async().subscribe(channel).whenComplete((done, failure) -> {
            if (failure instanceof RedisCommandExecutionException || failure instanceof CompletionException
                    && failure.getCause() instanceof RedisCommandExecutionException) {
                this.refusals.warn(() -> "Redis node " + ((index >= 0) ? Uris.nodeName(this.uris.get(index)) : "?")
                        + " refuses SUBSCRIBE on the release channels: waiters in this JVM are not woken by its releases, and "
                        + "take a lock by retrying after their retry delay; allow the user +subscribe and the channels "
                        + "&<key-prefix>* (see docs/production.md)", failure);
            }
        });
    }

    private int indexOf(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
        for (int i = 0; i < this.connections.length(); i++) {
            if (this.connections.get(i) == connection) {
                return i;
            }
        }
        return -1;
    }

    private void openOnce() {
        if (this.opened.compareAndSet(false, true)) {
            for (int i = 0; i < this.uris.size(); i++) {
                open(i);
            }
            this.resubscribe = this.scheduler.scheduleWithFixedDelay(this::resubscribe, RESUBSCRIBE_MILLIS, RESUBSCRIBE_MILLIS,
                    TimeUnit.MILLISECONDS);
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
                this.scheduler.schedule(() -> open(index), RECONNECT_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            connection.addListener(new RedisPubSubAdapter<>() {

                @Override
                public void message(byte[] channel, byte[] message) {
                    wake(channel, message, false);
                }

            });
            this.connections.set(index, connection);
            if (this.closed) {
                connection.closeAsync();
                return;
            }
            for (ByteBuffer name : new ArrayList<>(this.channels.keySet())) {
                subscribeOn(connection, name);
            }
        });
    }

    /** Subscribes every open connection again to the channels that have waiters on the nodes. */
    private void resubscribe() {
        for (ByteBuffer name : new ArrayList<>(this.channels.keySet())) {
            for (int i = 0; i < this.connections.length(); i++) {
                StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.get(i);
                if (connection != null && connection.isOpen()) {
                    subscribeOn(connection, name);
                }
            }
        }
    }

    /**
     * Wakes this JVM's waiters of a channel, as a release message from a node would: on this thread when it is
     * not an I/O thread (the release was just sent from it, so the waiters' attempts follow it on every
     * connection), else on the wake executor. A waiter that throws does not keep the others from waking.
     */
    public void wakeLocal(byte[] channel, byte[] token) {
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            wake(channel, token, false); // not in order with the release from here: counts as a node's message
            return;
        }
        Channel entry = this.channels.get(ByteBuffer.wrap(channel));
        if (entry != null) {
            ByteBuffer released = ByteBuffer.wrap(token);
            for (Waiter waiter : entry.waiters) {
                try {
                    waiter.released(released, true);
                }
                catch (RuntimeException ex) {
                    logger.log(System.Logger.Level.WARNING, "A waiter failed to wake: " + ex, ex);
                }
            }
        }
    }

    private void wake(byte[] channel, byte[] token, boolean local) {
        Channel entry = this.channels.get(ByteBuffer.wrap(channel));
        if (entry != null) {
            ByteBuffer released = ByteBuffer.wrap(token);
            for (Waiter waiter : entry.waiters) {
                this.wakeExecutor.execute(() -> waiter.released(released, local));
            }
        }
    }

    private void forEachConnection(Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> action) {
        for (int i = 0; i < this.connections.length(); i++) {
            StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.get(i);
            if (connection != null && connection.isOpen()) {
                action.accept(connection); // rejected while disconnected: the future fails, nothing throws
            }
        }
    }

    @Override
    public void close() {
        this.closed = true;
        ScheduledFuture<?> periodic = this.resubscribe;
        if (periodic != null) {
            periodic.cancel(false);
        }
        for (int i = 0; i < this.connections.length(); i++) {
            StatefulRedisPubSubConnection<byte[], byte[]> connection = this.connections.getAndSet(i, null);
            if (connection != null) {
                connection.closeAsync();
            }
        }
    }

    /** What is woken by a release. */
    @FunctionalInterface
    public interface Waiter {

        /**
         * A lease of the lock was released.
         * @param token the released lease's token
         * @param inOrder true when the release was sent from this thread just before, so that commands the waiter
         * sends now reach every node after it; false for a node's message (other nodes may not have it yet)
         */
        void released(ByteBuffer token, boolean inOrder);

    }

    /** A waiter's listening to one channel; closing it ends the waiter's wake-ups. */
    public interface Subscription {

        /** Also listens on the nodes, for releases made by other clients (once; later calls do nothing). */
        void onNodes();

        void close();

    }

    /** One channel's waiters, and how many of them listen on the nodes. */
    private static final class Channel {

        private final byte[] channel;

        private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

        private volatile int onNodes; // changed inside the map's compute functions only; read anywhere

        Channel(byte[] channel) {
            this.channel = channel;
        }

    }

}
