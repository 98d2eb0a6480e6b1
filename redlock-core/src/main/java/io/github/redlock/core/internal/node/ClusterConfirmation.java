package io.github.redlock.core.internal.node;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * Whether a cluster's other masters confirm a cluster node's view, the cluster's counterpart of a Sentinel group's
 * confirmation ({@link SentinelWatch}): each master of the view is asked {@code CLUSTER NODES} every
 * {@link SentinelWatch#ASK_EVERY_MILLIS} ms on its own connection, and the node votes only while, for every master, a
 * majority of the others answered with this view to questions sent within {@link #CONFIRMATION_BOUND_NANOS}. A
 * majority of the masters with another view makes the node read the view again from one of them (docs/nodes.md, "A
 * deposed master counts only while the other masters confirm the view").
 */
final class ClusterConfirmation {

    /**
     * How fresh the other masters' confirmation of the view must be for the node to vote: as for a Sentinel node's
     * sentinels ({@link SentinelWatch#CONFIRMATION_BOUND_NANOS}).
     */
    static final long CONFIRMATION_BOUND_NANOS = SentinelWatch.CONFIRMATION_BOUND_NANOS;

    /**
     * A JVM system property that, set to {@code true}, turns the other masters' confirmation off (every cluster node
     * votes as if its view were confirmed): only for the control of a fault test that must show the hazard it guards
     * against. Never set it in production.
     */
    static final String UNCONFIRMED_PROPERTY = "redlock.internal.unconfirmed-clusters";

    /** Whether {@link #UNCONFIRMED_PROPERTY} turned the confirmation off, read once. */
    private static final boolean UNCONFIRMED = Boolean.getBoolean(UNCONFIRMED_PROPERTY);

    /** How often a waiter for the confirmation looks again: the answers come every {@link SentinelWatch#ASK_EVERY_MILLIS}. */
    private static final long AWAIT_EVERY_MILLIS = 50;

    private final Supplier<ClusterRoutes> view;

    private final EventExecutorGroup scheduler;

    /** Reads the view again from the master at the address given ({@code host:port}; null: any), for the reason given. */
    private final BiConsumer<@Nullable String, String> follow;

    /** Per master address: its latest answer to {@code CLUSTER NODES}, as a view signature. */
    private final Map<String, SentinelWatch.Answer> answers = new ConcurrentHashMap<>();

    /** Per master address: whether its question awaits an answer (one at a time). */
    private final Map<String, AtomicBoolean> asking = new ConcurrentHashMap<>();

    /** The view the other masters confirmed, and until when; {@code view} null: none. */
    private volatile Confirmed confirmed = new Confirmed(null, 0);

    /** When the node last read the view again because a majority named another one ({@link System#nanoTime()}). */
    private volatile long lastFollowNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);

    private volatile @Nullable ScheduledFuture<?> askingTask;

    private volatile boolean closed;

    /** A view the other masters confirmed, and until when ({@link System#nanoTime()}). */
    private record Confirmed(@Nullable ClusterRoutes view, long untilNanos) {
    }

    ClusterConfirmation(Supplier<ClusterRoutes> view, EventExecutorGroup scheduler, BiConsumer<@Nullable String, String> follow) {
        this.view = view;
        this.scheduler = scheduler;
        this.follow = follow;
    }

    /** Starts asking the masters, every {@link SentinelWatch#ASK_EVERY_MILLIS} ms; once. */
    void start() {
        if (this.askingTask == null && !this.closed) {
            ScheduledFuture<?> task = this.scheduler.scheduleAtFixedRate(this::askAll, SentinelWatch.ASK_EVERY_MILLIS,
                    SentinelWatch.ASK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
            this.askingTask = task;
            if (this.closed) { // stopped meanwhile: stop() may have read no task yet
                task.cancel(false);
            }
        }
    }

    /** Stops asking. */
    void stop() {
        this.closed = true;
        ScheduledFuture<?> task = this.askingTask;
        if (task != null) {
            task.cancel(false);
        }
    }

    /**
     * Whether the other masters confirm the current view: for every master of it, a majority of the cluster's masters
     * other than it ({@code floor((m - 1) / 2) + 1} of the {@code m - 1}) answered {@code CLUSTER NODES}, to questions sent
     * within {@link #CONFIRMATION_BOUND_NANOS}, with this view's masters and slots. A master never confirms itself: a
     * deposed master cut off from the cluster still names itself. A volatile read and a clock read.
     */
    boolean confirms() {
        if (UNCONFIRMED) {
            return true;
        }
        Confirmed current = this.confirmed;
        return current.view() == this.view.get() && current.view() != null && current.untilNanos() - System.nanoTime() > 0;
    }

    /** Why the node may not vote now for want of the other masters' confirmation, for refusals and its status. */
    String unconfirmed() {
        ClusterRoutes current = this.view.get();
        int masters = current.masters().size();
        if (masters < 2) {
            return "no other master of the cluster can confirm that its one master is still the master (a cluster node needs "
                    + "at least two masters, three for failovers)";
        }
        int needed = (masters - 1) / 2 + 1;
        return "no majority (" + needed + " of the " + (masters - 1) + " others, for each master) of the cluster's masters "
                + "confirmed within the last " + TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS) + " ms that its view ("
                + current.signature() + ") is theirs (masters unreachable, or a failover)";
    }

    /**
     * A future completed with true as soon as the other masters confirm the current view ({@link #confirms()}), or with
     * false after {@code timeoutMillis}.
     */
    CompletableFuture<Boolean> confirmed(long timeoutMillis) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        awaitConfirmed(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), result);
        return result;
    }

    private void awaitConfirmed(long deadlineNanos, CompletableFuture<Boolean> result) {
        if (confirms()) {
            result.complete(true);
        }
        else if (this.closed || deadlineNanos - System.nanoTime() <= 0) {
            result.complete(false);
        }
        else {
            this.scheduler.schedule(() -> awaitConfirmed(deadlineNanos, result), AWAIT_EVERY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Asks every master of the view for its view, each on its own connection, one question at a time each. */
    private void askAll() {
        ClusterRoutes current = this.view.get();
        if (this.closed) {
            return;
        }
        for (ClusterMaster shard : current.masters()) {
            RedisAsyncCommands<byte[], byte[]> async = shard.connection.commands();
            AtomicBoolean busy = this.asking.computeIfAbsent(shard.address, (address) -> new AtomicBoolean());
            if (async == null || !shard.connection.isConnected() || !busy.compareAndSet(false, true)) {
                continue;
            }
            long sentAt = System.nanoTime();
            CompletableFuture<String> reply;
            try {
                reply = async.clusterNodes().toCompletableFuture();
            }
            catch (RuntimeException ex) {
                reply = CompletableFuture.failedFuture(ex);
            }
            RedisURI source = shard.uri;
            reply.orTimeout(TimeUnit.NANOSECONDS.toMillis(CONFIRMATION_BOUND_NANOS), TimeUnit.MILLISECONDS).whenComplete((text, failure) -> {
                busy.set(false);
                if (failure == null && text != null) {
                    String signature;
                    try {
                        signature = ClusterView.parse(text, source).signature();
                    }
                    catch (RuntimeException ex) {
                        signature = "";
                    }
                    answered(shard.address, new SentinelWatch.Answer(sentAt, signature));
                }
            });
        }
        List<String> addresses = current.masters().stream().map((shard) -> shard.address).toList();
        this.asking.keySet().retainAll(addresses);
        this.answers.keySet().retainAll(addresses);
    }

    /** Keeps a master's answer if it is newer than the one kept, and works out the confirmation again. */
    private void answered(String address, SentinelWatch.Answer answer) {
        this.answers.merge(address, answer, (before, after) -> (after.sentAtNanos() - before.sentAtNanos() > 0) ? after : before);
        ClusterRoutes current = this.view.get();
        List<String> addresses = current.masters().stream().map((shard) -> shard.address).toList();
        long until = confirmedUntil(addresses, current.signature(), this.answers);
        this.confirmed = new Confirmed((until != Long.MIN_VALUE) ? current : null, until);
        // A majority of the masters names another view than this node's: read it again, from one of them.
        Map<String, Integer> bySignature = new HashMap<>();
        this.answers.values().forEach((each) -> bySignature.merge(each.address(), 1, Integer::sum));
        int majority = addresses.size() / 2 + 1;
        bySignature.forEach((signature, count) -> {
            if (count >= majority && !signature.isEmpty() && !signature.equals(current.signature())
                    && System.nanoTime() - this.lastFollowNanos > TimeUnit.SECONDS.toNanos(1)) {
                this.lastFollowNanos = System.nanoTime();
                String from = this.answers.entrySet().stream().filter((entry) -> entry.getValue().address().equals(signature))
                        .map(Map.Entry::getKey).findFirst().orElse(null);
                this.follow.accept(from, "a majority of the cluster's masters has another view: " + signature);
            }
        });
    }

    /**
     * Until when ({@link System#nanoTime()}) the masters' answers confirm the view with {@code signature} and the masters
     * at {@code addresses}, for every master of it (see {@link #confirms()}), or {@link Long#MIN_VALUE} when they do not.
     * A pure function of its arguments.
     * @param answers per master address, the latest answer: when its question was sent, and the signature it named
     */
    static long confirmedUntil(List<String> addresses, String signature, Map<String, SentinelWatch.Answer> answers) {
        int masters = addresses.size();
        if (masters < 2) {
            return Long.MIN_VALUE;
        }
        int needed = (masters - 1) / 2 + 1;
        long until = 0;
        boolean first = true; // nanoTime values compare only by their difference: no value is later than all others
        for (String master : addresses) {
            List<Long> sent = new ArrayList<>();
            for (String other : addresses) {
                SentinelWatch.Answer answer = answers.get(other);
                if (!other.equals(master) && answer != null && answer.address().equals(signature)) {
                    sent.add(answer.sentAtNanos());
                }
            }
            if (sent.size() < needed) {
                return Long.MIN_VALUE;
            }
            sent.sort((a, b) -> Long.compare(b - a, 0));
            long masterUntil = sent.get(needed - 1) + CONFIRMATION_BOUND_NANOS;
            until = (first || masterUntil - until < 0) ? masterUntil : until;
            first = false;
        }
        return until;
    }

}
