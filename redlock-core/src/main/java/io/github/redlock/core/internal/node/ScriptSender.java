package io.github.redlock.core.internal.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.github.redlock.core.internal.script.LuaScript;
import io.github.redlock.core.internal.script.SlotGroups;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock's scripts on one node, for {@link RedisNodeClient}: by SHA once the connection loaded them (by body
 * before), falling back to the body on {@code NOSCRIPT} on the same connection (so that it still runs after any command
 * sent before it), and on a cluster node once per slot group ({@link SlotGroups}), each group on the master of its slot,
 * an acquisition that some groups granted and another refused released at once. Every command sent counts in the node's
 * commands awaiting a reply until it is answered.
 */
final class ScriptSender {

    /** Where a node's commands go: each kind of node has its own routes. */
    private final NodeKind routes;

    /** Whether the node is a cluster's, whose scripts on several keys are split by slot group. */
    private final boolean cluster;

    /** Told of every failed command: the node may follow a failover or read its view again. */
    private final Consumer<@Nullable Throwable> failed;

    /** Given each release that did not reach the node, to send once it is back. */
    private final Consumer<OwedReleases.Release> owe;

    /** Commands sent to the node and not yet answered: grows while the node is frozen. */
    private final AtomicInteger awaitingReply;

    ScriptSender(NodeKind routes, Consumer<@Nullable Throwable> failed, Consumer<OwedReleases.Release> owe, AtomicInteger awaitingReply) {
        this.routes = routes;
        this.cluster = routes instanceof ClusterShards;
        this.failed = failed;
        this.owe = owe;
        this.awaitingReply = awaitingReply;
    }

    /**
     * Runs a script and hands its reply to {@code done}; without a connection, hands it a {@link NodeReply.NotSent} with
     * why, so that a release is owed (sent once the node is back).
     */
    void send(LuaScript script, byte[][] keys, byte[][] args, BiConsumer<Long, Throwable> done) {
        List<SlotGroups.Part> parts = this.cluster ? SlotGroups.split(script, keys, args) : null;
        if (parts != null) {
            sendParts(script, parts, done);
            return;
        }
        byte[][] placed = this.routes.placed(keys);
        NodeConnection connection = this.routes.route(placed[0]);
        RedisAsyncCommands<byte[], byte[]> async = (connection != null) ? connection.commands() : null;
        if (connection == null || async == null) {
            done.accept(null, new NodeReply.NotSent(this.routes.notConnected()));
            return;
        }
        send(connection, async, script, placed, args, done);
    }

    /** Runs a script on the given commands of one of the node's connections (one that {@link NodeKind#route} gave). */
    void send(NodeConnection connection, RedisAsyncCommands<byte[], byte[]> async, LuaScript script, byte[][] keys, byte[][] args,
            BiConsumer<Long, Throwable> done) {
        this.awaitingReply.incrementAndGet();
        if (!connection.scriptsLoaded()) {
            async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args).whenComplete((reply, failure) -> {
                this.awaitingReply.decrementAndGet();
                this.failed.accept(failure);
                done.accept(reply, failure);
            });
            return;
        }
        async.<Long>evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args).whenComplete((reply, failure) -> {
            this.awaitingReply.decrementAndGet();
            if (unwrap(failure) instanceof RedisNoScriptException) {
                this.awaitingReply.incrementAndGet();
                async.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args).whenComplete((retried, again) -> {
                    this.awaitingReply.decrementAndGet();
                    this.failed.accept(again);
                    done.accept(retried, again);
                });
            }
            else {
                this.failed.accept(failure);
                done.accept(reply, failure);
            }
        });
    }

    /**
     * Runs a script on several keys of a cluster node once per slot group, each on the master of its slot, and hands the
     * node's reply to {@code done} once every group answered: the first failure, or the groups' replies combined.
     */
    private void sendParts(LuaScript script, List<SlotGroups.Part> parts, BiConsumer<Long, Throwable> done) {
        int count = parts.size();
        NodeConnection[] connections = new NodeConnection[count];
        List<RedisAsyncCommands<byte[], byte[]>> commands = new ArrayList<>(count);
        byte[][][] placed = new byte[count][][];
        for (int i = 0; i < count; i++) {
            placed[i] = this.routes.placed(parts.get(i).keys());
            connections[i] = this.routes.route(placed[i][0]);
            RedisAsyncCommands<byte[], byte[]> async = (connections[i] != null) ? connections[i].commands() : null;
            if (async == null) {
                done.accept(null, new NodeReply.NotSent(this.routes.notConnected())); // none sent
                return;
            }
            commands.add(async);
        }
        long[] replies = new long[count];
        Throwable[] failures = new Throwable[count];
        AtomicInteger pending = new AtomicInteger(count);
        for (int i = 0; i < count; i++) {
            int part = i;
            send(connections[i], commands.get(i), script, placed[i], parts.get(i).args(), (reply, failure) -> {
                replies[part] = (reply != null) ? reply : 0;
                failures[part] = (failure != null) ? failure : (reply == null) ? new IllegalStateException("no reply") : null;
                if (pending.decrementAndGet() == 0) {
                    Throwable first = Arrays.stream(failures).filter(Objects::nonNull).findFirst().orElse(null);
                    long combined = SlotGroups.combine(script, replies);
                    if (first == null && combined <= 0) {
                        undoGranted(script, parts, replies);
                    }
                    done.accept((first == null) ? combined : null, first);
                }
            });
        }
    }

    /** Releases the slot groups that granted an acquisition that another group refused; one not delivered is owed. */
    private void undoGranted(LuaScript script, List<SlotGroups.Part> parts, long[] replies) {
        for (int i = 0; i < parts.size(); i++) {
            SlotGroups.Part undo = (replies[i] > 0) ? SlotGroups.undo(script, parts.get(i)) : null;
            if (undo != null) {
                long ttlMillis = Long.parseLong(new String(parts.get(i).args()[1], StandardCharsets.US_ASCII));
                OwedReleases.Release release = new OwedReleases.Release(LuaScript.RELEASE_MULTI, undo.keys(), undo.args(),
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis));
                send(LuaScript.RELEASE_MULTI, undo.keys(), undo.args(), (reply, failure) -> {
                    if (notDelivered(scriptReply(reply, failure))) {
                        this.owe.accept(release);
                    }
                });
            }
        }
    }

    /**
     * An acquisition script's reply: positive is a yes (with the fencing counter, for a fenced lock); below -1, a
     * no with the holder's PTTL, {@code -(pttl + 2)}; else a no.
     */
    static NodeReply acquisitionReply(Long reply, Throwable failure) {
        if (failure == null && reply != null && reply > 0) {
            return NodeReply.counted(reply);
        }
        if (failure == null && reply != null && reply < 0) {
            return NodeReply.deniedFor(-reply - 2);
        }
        return ScriptSender.scriptReply(reply, failure);
    }

    /** A script's reply of 1 as a yes, anything else as a no, a failure as what it was. */
    static NodeReply scriptReply(@Nullable Long reply, @Nullable Throwable failure) {
        if (failure != null) {
            return NodeReply.failure(failure);
        }
        return (reply != null && reply == 1L) ? NodeReply.GRANTED : NodeReply.DENIED;
    }

    /** Whether a release did not reach the node: rejected before sending, or cut off by a dropped connection. */
    static boolean notDelivered(NodeReply reply) {
        if (reply.outcome() == NodeReply.Outcome.REJECTED) {
            return true;
        }
        String reason = reply.reason().toLowerCase(Locale.ROOT);
        return reply.outcome() == NodeReply.Outcome.ERROR && (reason.contains("disconnected") || reason.contains("connection closed"));
    }

    static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

}
