package io.github.redlock.core.internal.node;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.NodeConnector;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * A node that is a Sentinel group's master: the connection reaches the server the sentinels name, their announcements
 * of a failover make it follow at once ({@link SentinelWatch}), and it votes only while a majority of them freshly
 * confirms the server it reaches as the master (docs/nodes.md).
 */
final class SentinelGroup extends ServerNode {

    /** How often a node that followed a failover checks that it left the former master. */
    private static final long FOLLOW_RETRY_MILLIS = 500;

    /** How many times, at most: for 15 s. */
    private static final int FOLLOW_ATTEMPTS = 30;

    private final SentinelWatch sentinels;

    private final NodeVote vote;

    private final EventExecutorGroup scheduler;

    SentinelGroup(NodeConnector connector, RedisURI uri, EventExecutorGroup scheduler, NodeConnection link, NodeVote vote) {
        super(link);
        this.vote = vote;
        this.scheduler = scheduler;
        this.sentinels = new SentinelWatch(connector, uri, scheduler, this::followFailover,
                (named) -> follow("a majority of the sentinels name " + named + " as the master"), link::address);
    }

    @Override
    public CompletableFuture<Void> connect() {
        this.sentinels.start();
        return super.connect();
    }

    @Override
    public CompletableFuture<Void> close() {
        return CompletableFuture.allOf(super.close(), this.sentinels.close());
    }

    /** The address is the master's, which changes: its reconnections say only that they are reconnecting. */
    @Override
    public void reconnectFailed(@Nullable SocketAddress remote, Throwable cause) {
    }

    /** The current master, while connected. */
    @Override
    public List<String> servers() {
        String master = isConnected() ? this.link.address() : null;
        return (master != null) ? List.of(master) : List.of();
    }

    @Override
    public @Nullable String unconfirmed() {
        String address = this.link.address();
        return this.sentinels.confirms(address) ? null : this.sentinels.unconfirmed(address);
    }

    @Override
    public CompletableFuture<Boolean> confirmed(long timeoutMillis) {
        return this.sentinels.confirmed(this.link.address(), timeoutMillis);
    }

    /**
     * Drops the connection to the server that answers now and connects to the master that the sentinels name, which is
     * checked before it votes (a promoted replica is quarantined as a restarted server is).
     */
    @Override
    public void follow(String reason) {
        this.link.reconnect(reason);
    }

    /** A write refused on a replica (it may come wrapped in a script error before Redis 7): the master was replaced. */
    @Override
    public void noteFailure(Throwable cause) {
        if (cause instanceof RedisReadOnlyException || String.valueOf(cause.getMessage()).contains("READONLY")) {
            follow("the server answering it is a replica now (" + cause.getMessage() + ")");
        }
    }

    /**
     * The sentinels announced a failover: reconnects to the master they name, and again every half second, for up to 15
     * s, while the node still answers as the server it was before (the {@code run_id} its last decided check saw): a
     * sentinel that has not yet heard of the failover (they tell each other every 2 s) may still name the former master,
     * and a repeat of the announcement is not reported again.
     */
    private void followFailover(String announcement) {
        String before = this.vote.runId();
        follow("the sentinels announced a failover (" + announcement + ")");
        if (before != null) {
            this.scheduler.schedule(() -> followUntilChanged(before, FOLLOW_ATTEMPTS), FOLLOW_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void followUntilChanged(String before, int attemptsLeft) {
        if (this.link.isClosed() || attemptsLeft <= 0) {
            return;
        }
        NodeVote.State state = this.vote.current();
        if (isConnected() && state.checked() && before.equals(this.vote.runId())) {
            follow("the sentinels still named the former master after a failover");
        }
        else if (isConnected() && state.checked()) {
            return; // another server answers now: the failover is followed
        }
        this.scheduler.schedule(() -> followUntilChanged(before, attemptsLeft - 1), FOLLOW_RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }

}
