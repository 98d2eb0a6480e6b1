package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import io.github.redlock.core.NodeConnector;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * What a Sentinel node knows of its master from its sentinels: their announcements of a failover, which make it follow
 * at once ({@link SentinelAnnouncements}: a former master that still runs answers as a master until the sentinels turn
 * it into a replica, some seconds later, and would meanwhile grant locks that the new master never hears of), and
 * their confirmation of the master, without which the node does not vote.
 * <p>
 * An announcement that never arrives (a sentinel connection that went silent, a sentinel stopped) must not leave the
 * node voting through a deposed master, so the node votes only on a <em>confirmation</em>: every sentinel listed is
 * asked {@code SENTINEL GET-MASTER-ADDR-BY-NAME} every {@link #ASK_EVERY_MILLIS} ms, on a connection of its own, and
 * the node votes through a server only while a majority of the listed sentinels named it in answers to questions sent
 * within the last {@link #CONFIRMATION_BOUND_NANOS} (a sentinel's latest answer replaces its earlier ones). A question
 * unanswered within that bound drops its connection, which is opened again. docs/nodes.md gives the timing argument:
 * a client cut off from the sentinels stops counting a deposed master within the bound of the sentinels' switch, and
 * a client counts a promoted server only a quarantine and that bound after a majority named it.
 * <p>
 * A sentinel that cannot be reached is tried again in the background, backing off to two seconds; Lettuce reconnects
 * an established subscription by itself. Without any sentinel connection (a connector that opens none) the node can be
 * confirmed by nobody, and does not vote.
 */
final class SentinelWatch {

    /**
     * How fresh a majority's confirmation of the master must be for the node to vote: a confirmation counts from the
     * moment its question was sent, for 2 s (the restart quarantine of a server that a Sentinel node's check finds
     * promoted or restarted is longer by as much).
     */
    static final long CONFIRMATION_BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    /**
     * A JVM system property that, set to {@code true}, turns the confirmation off (every Sentinel node votes as if its
     * sentinels confirmed its master): only for the control of a fault test that must show the hazard it guards
     * against. Never set it in production.
     */
    static final String UNCONFIRMED_PROPERTY = "redlock.internal.unconfirmed-sentinels";

    /** Whether {@link #UNCONFIRMED_PROPERTY} turned the confirmation off, read once. */
    private static final boolean UNCONFIRMED = Boolean.getBoolean(UNCONFIRMED_PROPERTY);

    /** How often each sentinel is asked which server is the master. */
    static final long ASK_EVERY_MILLIS = 250;

    /** How long after the last follow a majority that names another server than the connection's starts another. */
    private static final long FOLLOW_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Delay RETRY = Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS);

    private final NodeConnector connector;

    private final RedisURI node;

    private final String masterName;

    private final EventExecutorGroup scheduler;

    /** The sentinels' announcements of a failover, which make the node follow at once. */
    private final SentinelAnnouncements announcements;

    private volatile boolean closed;

    /** The sentinels listed, in order. */
    private final List<RedisURI> listed;

    /** How many of the listed sentinels make a majority. */
    private final int majority;

    /** Per sentinel, the connection its questions go over, or null while there is none. */
    private final AtomicReferenceArray<@Nullable StatefulRedisPubSubConnection<byte[], byte[]>> askers;

    /** Per sentinel, whether a connection is being opened or a question awaits its answer. */
    private final AtomicBoolean[] busy;

    /**
     * Per sentinel, how many connection attempts failed in a row, and from when ({@link System#nanoTime()}) it is tried
     * again; read and written only by whoever set its {@link #busy} flag.
     */
    private final long[][] retry;

    /** Per sentinel, its latest answer, or null before the first. */
    private final AtomicReferenceArray<@Nullable Answer> answers;

    /** The server that a majority of the sentinels' latest answers names, and until when that counts. */
    private volatile Confirmation confirmation = Confirmation.NONE;

    /** Completed, and replaced, each time the confirmation changes: what {@link #confirmed} waits on. */
    private volatile CompletableFuture<Void> changed = new CompletableFuture<>();

    /** Told that a majority names a server other than the one the node's connection reaches, with its address. */
    private final Consumer<String> onMajorityElsewhere;

    /** The address ({@code host:port}) of the server that the node's connection reaches, or null. */
    private final java.util.function.Supplier<@Nullable String> connectedTo;

    private volatile long lastFollowNanos = System.nanoTime() - FOLLOW_AGAIN_NANOS;

    private volatile @Nullable ScheduledFuture<?> asking;

    /** Whether the connector opens no sentinel connections, so that nothing can confirm the node's master. */
    private volatile boolean unsupported;

    SentinelWatch(NodeConnector connector, RedisURI node, EventExecutorGroup scheduler, Consumer<String> onFailover,
            Consumer<String> onMajorityElsewhere, java.util.function.Supplier<@Nullable String> connectedTo) {
        this.connector = connector;
        this.node = node;
        this.masterName = String.valueOf(node.getSentinelMasterId());
        this.scheduler = scheduler;
        this.announcements = new SentinelAnnouncements(connector, node, scheduler, onFailover);
        this.onMajorityElsewhere = onMajorityElsewhere;
        this.connectedTo = connectedTo;
        this.listed = List.copyOf(node.getSentinels());
        this.majority = this.listed.size() / 2 + 1;
        this.askers = new AtomicReferenceArray<>(this.listed.size());
        this.answers = new AtomicReferenceArray<>(this.listed.size());
        this.busy = new AtomicBoolean[this.listed.size()];
        this.retry = new long[this.listed.size()][2];
        for (int i = 0; i < this.busy.length; i++) {
            this.busy[i] = new AtomicBoolean();
        }
    }

    /** Subscribes on every sentinel, and starts asking each which server is the master, in the background. */
    void start() {
        if (this.asking != null) {
            return;
        }
        this.announcements.start();
        this.asking = this.scheduler.scheduleAtFixedRate(this::askAll, 0, ASK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Whether a majority of the listed sentinels named {@code address} as the master in answers to questions sent within
     * {@link #CONFIRMATION_BOUND_NANOS}: the node may vote through that server. A volatile read and a clock read.
     */
    boolean confirms(@Nullable String address) {
        if (UNCONFIRMED) {
            return true;
        }
        Confirmation current = this.confirmation;
        return address != null && address.equals(current.address()) && current.untilNanos() - System.nanoTime() > 0;
    }

    /** Why the node may not vote through {@code address}, for its status and refusals. */
    String unconfirmed(@Nullable String address) {
        if (this.unsupported) {
            return "the connector opens no sentinel connections (NodeConnector.connectSentinel), so no majority of the "
                    + "sentinels can confirm which server is the master";
        }
        Confirmation current = this.confirmation;
        String named = (current.address() != null && !current.address().equals(address))
                ? "; they name " + current.address() : "";
        return "no majority (" + this.majority + " of " + this.listed.size() + ") of its sentinels confirmed within the last "
                + TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS) + " ms that " + address + " is the master" + named
                + " (sentinels unreachable, or a failover)";
    }

    /**
     * A future completed with whether a majority confirms {@code address} ({@link #confirms}), as soon as it does, or
     * with false after {@code timeoutMillis}.
     */
    CompletableFuture<Boolean> confirmed(@Nullable String address, long timeoutMillis) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        this.scheduler.schedule(() -> result.complete(confirms(address)), timeoutMillis, TimeUnit.MILLISECONDS);
        awaitConfirmed(address, result);
        return result;
    }

    /** Completes {@code result} once a change of the confirmation confirms {@code address}; its timeout is the caller's. */
    private void awaitConfirmed(@Nullable String address, CompletableFuture<Boolean> result) {
        CompletableFuture<Void> next = this.changed; // before the read: a change in between completes it
        if (confirms(address)) {
            result.complete(true);
        }
        else if (this.closed) {
            result.complete(false);
        }
        else if (!result.isDone()) {
            // Replaced before it is completed, so a completed one is never waited on twice (close() completes the last one).
            next.thenRun(() -> awaitConfirmed(address, result));
        }
    }

    /** Asks every sentinel that is not still answering the last question, opening its connection first where it has none. */
    private void askAll() {
        for (int i = 0; i < this.listed.size(); i++) {
            if (!this.closed && this.busy[i].compareAndSet(false, true)) {
                ask(i);
            }
        }
    }

    private void ask(int index) {
        StatefulRedisPubSubConnection<byte[], byte[]> connection = this.askers.get(index);
        if (connection == null) {
            openAsker(index);
            return;
        }
        long sentAt = System.nanoTime();
        CompletableFuture<List<byte[]>> reply;
        try {
            CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).add("get-master-addr-by-name").add(this.masterName);
            reply = connection.async().dispatch(CommandType.SENTINEL, new ValueListOutput<>(ByteArrayCodec.INSTANCE), args).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        reply.orTimeout(TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS), TimeUnit.MILLISECONDS).whenComplete((address, failure) -> {
            if (failure == null) { // an empty answer (the sentinel knows no such master) names none
                answered(index, new Answer(sentAt, (address != null && address.size() == 2) ? new String(address.get(0), StandardCharsets.UTF_8)
                        + ":" + new String(address.get(1), StandardCharsets.UTF_8) : ""));
            }
            else {
                // Silent (a partition that drops packets keeps the socket open) or broken: a new connection next time.
                this.askers.compareAndSet(index, connection, null);
                close(connection);
            }
            this.busy[index].set(false);
        });
    }

    private void openAsker(int index) {
        long[] backoff = this.retry[index];
        if (backoff[1] - System.nanoTime() > 0) {
            this.busy[index].set(false);
            return;
        }
        CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> attempt;
        try {
            attempt = this.connector.connectSentinel(this.node, this.listed.get(index)).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            attempt = CompletableFuture.failedFuture(ex);
        }
        // Given up after the bound (a silent network may accept the connection and never answer its handshake); a
        // connection that opens later is closed at once.
        AtomicBoolean settled = new AtomicBoolean();
        this.scheduler.schedule(() -> {
            if (settled.compareAndSet(false, true)) {
                retryLater(index, backoff);
            }
        }, TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS), TimeUnit.MILLISECONDS);
        attempt.whenComplete((connection, failure) -> {
            if (!settled.compareAndSet(false, true)) {
                close(connection);
                return;
            }
            if (failure == null && connection != null && !this.closed) {
                backoff[0] = 0;
                this.askers.set(index, connection);
                if (this.closed) { // closed meanwhile, after close() emptied the array
                    close(this.askers.getAndSet(index, null));
                    return;
                }
                ask(index); // still busy: the first question goes at once
                return;
            }
            close(connection);
            if (failure instanceof UnsupportedOperationException || (failure != null && failure.getCause() instanceof UnsupportedOperationException)) {
                this.unsupported = true;
            }
            retryLater(index, backoff);
        });
    }

    /** A connection to a sentinel failed: it is tried again after a delay that grows to two seconds. */
    private void retryLater(int index, long[] backoff) {
        backoff[0]++;
        backoff[1] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY.createDelay(backoff[0]).toMillis());
        this.busy[index].set(false);
    }

    /** Keeps a sentinel's answer if it is newer than the one kept, and works out the confirmation again. */
    private void answered(int index, Answer answer) {
        Answer before;
        do {
            before = this.answers.get(index);
            if (before != null && before.sentAtNanos() - answer.sentAtNanos() >= 0) {
                return;
            }
        }
        while (!this.answers.compareAndSet(index, before, answer));
        Confirmation now = confirmationOf(this.answers, this.majority);
        Confirmation was = this.confirmation;
        this.confirmation = now;
        if (!now.equals(was)) {
            CompletableFuture<Void> previous = this.changed;
            this.changed = new CompletableFuture<>();
            previous.complete(null);
        }
        String connected = this.connectedTo.get();
        long sinceFollow = System.nanoTime() - this.lastFollowNanos;
        if (now.address() != null && connected != null && !now.address().equals(connected) && sinceFollow >= FOLLOW_AGAIN_NANOS) {
            this.lastFollowNanos = System.nanoTime();
            this.onMajorityElsewhere.accept(now.address());
        }
    }

    /**
     * The server that at least {@code majority} of the sentinels' latest answers name, counted until the
     * {@code majority}-th latest of those answers' questions plus {@link #CONFIRMATION_BOUND_NANOS}; at most one server
     * can be so named, as each sentinel has one latest answer. {@link Confirmation#NONE} when none is.
     */
    static Confirmation confirmationOf(AtomicReferenceArray<@Nullable Answer> answers, int majority) {
        List<Answer> latest = new ArrayList<>();
        for (int i = 0; i < answers.length(); i++) {
            Answer answer = answers.get(i);
            if (answer != null) {
                latest.add(answer);
            }
        }
        for (Answer candidate : latest) {
            if (candidate.address().isEmpty()) {
                continue;
            }
            List<Long> sent = latest.stream().filter((answer) -> answer.address().equals(candidate.address()))
                    .map(Answer::sentAtNanos).sorted((a, b) -> Long.compare(b - a, 0)).toList();
            if (sent.size() >= majority) {
                return new Confirmation(candidate.address(), sent.get(majority - 1) + CONFIRMATION_BOUND_NANOS);
            }
        }
        return Confirmation.NONE;
    }

    /** A sentinel's answer: the master it named, and when ({@link System#nanoTime()}) the question was sent. */
    record Answer(long sentAtNanos, String address) {
    }

    /** The server a majority named ({@code null}: none), and until when ({@link System#nanoTime()}) that counts. */
    record Confirmation(@Nullable String address, long untilNanos) {

        static final Confirmation NONE = new Confirmation(null, 0);

    }

    /** Stops listening: closes every sentinel connection, and any that opens later. */
    CompletableFuture<Void> close() {
        this.closed = true;
        ScheduledFuture<?> task = this.asking;
        if (task != null) {
            task.cancel(false);
        }
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        closing.add(this.announcements.close());
        for (int i = 0; i < this.askers.length(); i++) {
            closing.add(close(this.askers.getAndSet(i, null)));
        }
        this.changed.complete(null);
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    static CompletableFuture<Void> close(@Nullable StatefulRedisPubSubConnection<byte[], byte[]> connection) {
        return (connection != null) ? connection.closeAsync().exceptionally((failure) -> null) : CompletableFuture.completedFuture(null);
    }

}
