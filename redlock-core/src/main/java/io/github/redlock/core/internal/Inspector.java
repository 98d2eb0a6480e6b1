package io.github.redlock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.LockInspection;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.internal.engine.Tokens;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * Reads what every node holds of one lock ({@code inspect.lua}, read only): its exclusive key (also a key of a lock
 * on several keys), and its read-write lock's writer and readers. Every node is read at once; a node that does not
 * answer within the bound counts as {@code DOWN}.
 */
public final class Inspector {

    private Inspector() {
    }

    /**
     * @param statuses each node's vote now, by node name ({@code Redlock#nodeStatuses()})
     * @param key the lock's name as the application writes it
     * @param redisKey the key with its prefix
     * @param boundNanos how long to wait for the nodes' answers at most
     */
    public static LockInspection inspect(RedisNodeClient[] nodes, Map<String, NodeStatus> statuses, int quorum, String key, String redisKey,
            long boundNanos) {
        byte[] exclusive = redisKey.getBytes(StandardCharsets.UTF_8);
        byte[][] readWrite = LockType.READ.keys(redisKey, null).acquire(); // writer, readers, then the queues
        List<CompletableFuture<@Nullable Read>> reads = new ArrayList<>(nodes.length);
        for (RedisNodeClient node : nodes) {
            NodeStatus status = statuses.get(node.name());
            LockInspection.State voting = (status == null || status.state() == NodeStatus.State.DOWN) ? LockInspection.State.DOWN
                    : (status.state() == NodeStatus.State.QUARANTINED) ? LockInspection.State.QUARANTINED : null;
            if (!node.isConnected()) {
                reads.add(CompletableFuture.completedFuture(null));
                continue;
            }
            CompletableFuture<Object> own = read(node, exclusive);
            CompletableFuture<Object> writer = read(node, readWrite[0]);
            CompletableFuture<Object> readers = read(node, readWrite[1]);
            reads.add(CompletableFuture.allOf(own, writer, readers)
                    .thenApply((done) -> (@Nullable Read) node(node.name(), voting, own.join(), writer.join(), readers.join()))
                    .completeOnTimeout(null, boundNanos, TimeUnit.NANOSECONDS)
                    .exceptionally((failure) -> null));
        }
        List<Read> parts = new ArrayList<>(nodes.length);
        for (int i = 0; i < nodes.length; i++) {
            Read part = reads.get(i).join(); // bounded above
            parts.add((part != null) ? part : new Read(new LockInspection.Node(nodes[i].name(), LockInspection.State.DOWN, null, 0, null, 0), null));
        }
        String token = held(quorum, parts);
        List<LockInspection.Node> shown = parts.stream().map(Read::part).toList();
        if (token == null) {
            return new LockInspection(key, false, null, shown);
        }
        return new LockInspection(key, true, token.isEmpty() ? null : holder(token), shown);
    }

    /** One node's part, with the token it holds (never shown: it would let its reader release the lock), or null. */
    private record Read(LockInspection.Node part, @Nullable String token) {

    }

    /**
     * The instance that holds a lock a refused attempt found taken, when a quorum of nodes said "held by another" and
     * their tokens name one instance ({@link LockInspection#UNKNOWN_HOLDER} for another client's tokens); else empty.
     * Reads the key again on those nodes (read only), each within the bound; never fails.
     * @param refusals the attempt's replies, or null when no node was asked
     * @param redisKey the exclusive key (or a write lock's writer key), prefix included
     */
    public static CompletableFuture<@Nullable String> holderOf(RedisNodeClient[] nodes, @Nullable QuorumCall refusals, int quorum,
            byte[] redisKey, long boundNanos) {
        if (refusals == null || refusals.denied() < quorum) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<@Nullable String>> reads = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            NodeReply reply = refusals.reply(i);
            if (reply != null && reply.outcome() == NodeReply.Outcome.DENIED && nodes[i].isConnected()) {
                reads.add(read(nodes[i], redisKey).thenApply((answer) -> {
                    List<?> parts = (List<?>) answer;
                    return "string".equals(text(parts.get(0))) ? (@Nullable String) holder(text(parts.get(1))) : null;
                }).completeOnTimeout(null, boundNanos, TimeUnit.NANOSECONDS).exceptionally((failure) -> null));
            }
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply((done) -> {
            Map<String, Integer> holders = new HashMap<>();
            for (CompletableFuture<@Nullable String> read : reads) {
                String holder = read.join();
                if (holder != null) {
                    holders.merge(holder, 1, Integer::sum);
                }
            }
            return holders.entrySet().stream().filter((entry) -> entry.getValue() >= quorum).map(Map.Entry::getKey).findFirst().orElse(null);
        });
    }

    private static CompletableFuture<Object> read(RedisNodeClient node, byte[] key) {
        return node.call(LuaScript.INSPECT, new byte[][] { key });
    }

    /** One node's part: the exclusive key first, then the writer, then the readers; {@code voting} null for a node that votes. */
    private static Read node(String name, LockInspection.@Nullable State voting, Object own, Object writer, Object readers) {
        LockInspection.State held = (voting != null) ? voting : LockInspection.State.HELD;
        LockInspection.State free = (voting != null) ? voting : LockInspection.State.FREE;
        List<?> exclusive = (List<?>) own;
        if ("string".equals(text(exclusive.get(0)))) {
            String token = text(exclusive.get(1));
            return new Read(new LockInspection.Node(name, held, LockInspection.Kind.EXCLUSIVE, millis(exclusive.get(2)), holder(token), 0), token);
        }
        List<?> write = (List<?>) writer;
        if ("string".equals(text(write.get(0)))) {
            String token = text(write.get(1));
            return new Read(new LockInspection.Node(name, held, LockInspection.Kind.WRITE, millis(write.get(2)), holder(token), 0), token);
        }
        List<?> read = (List<?>) readers;
        int live = "zset".equals(text(read.get(0))) ? Integer.parseInt(text(read.get(1))) : 0;
        if (live > 0) {
            return new Read(new LockInspection.Node(name, held, LockInspection.Kind.READ, millis(read.get(2)), null, live), null);
        }
        return new Read(new LockInspection.Node(name, free, null, 0, null, 0), null);
    }

    /** The token a quorum of voting nodes holds, {@code ""} for readers on a quorum, or null when the lock is not held. */
    private static @Nullable String held(int quorum, List<Read> parts) {
        Map<String, Integer> tokens = new HashMap<>();
        int readers = 0;
        for (Read read : parts) {
            if (read.part().state() != LockInspection.State.HELD) {
                continue;
            }
            if (read.part().kind() == LockInspection.Kind.READ) {
                readers++;
            }
            else if (read.token() != null) {
                tokens.merge(read.token(), 1, Integer::sum);
            }
        }
        if (readers >= quorum) {
            return "";
        }
        return tokens.entrySet().stream().filter((entry) -> entry.getValue() >= quorum).map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /** The instance id a token names, or {@link LockInspection#UNKNOWN_HOLDER}. */
    private static String holder(String token) {
        String holder = Tokens.holderOf(token);
        return (holder != null) ? holder : LockInspection.UNKNOWN_HOLDER;
    }

    private static String text(@Nullable Object reply) {
        return (reply instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    private static long millis(@Nullable Object reply) {
        return (reply instanceof Long value) ? Math.max(0, value) : 0;
    }

}
