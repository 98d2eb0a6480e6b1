package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;

/**
 * Reads and writes keys on each node directly, to check what the lock left there. Connects per call, so
 * it works across restarts and never shares state with the client under test ({@link #remainingMillis}
 * keeps one connection per node instead, to check an invariant many times a second). Keys are encoded as
 * ISO-8859-1, so that {@code "\u00FF"} in a key is the single byte 0xFF that separates a read-write lock's
 * key from the names of its parts (ASCII keys are the same bytes as in UTF-8).
 */
final class NodeInspector implements AutoCloseable {

    /** Whether a node holds a token under a key (string value, or member of a sorted set scored by expiry), and for how long. */
    private static final String REMAINING = """
            local kind = redis.call('type', KEYS[1])['ok']
            if kind == 'string' then
                if redis.call('get', KEYS[1]) ~= ARGV[1] then return -1 end
                return redis.call('pttl', KEYS[1])
            elseif kind == 'zset' then
                local expiry = redis.call('zscore', KEYS[1], ARGV[1])
                if not expiry then return -1 end
                local time = redis.call('time')
                local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
                return math.min(tonumber(expiry) - now, redis.call('pttl', KEYS[1]))
            end
            return -1
            """;

    private static final StringCodec CODEC = new StringCodec(StandardCharsets.ISO_8859_1);

    private final RedisClient client = RedisClient.create();

    private final List<String> uris;

    private final Map<Integer, StatefulRedisConnection<String, String>> kept = new ConcurrentHashMap<>();

    NodeInspector(List<String> uris) {
        this.uris = new ArrayList<>(uris);
    }

    String get(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().get(key);
        }
    }

    /** The pub/sub channels with at least one subscriber on a node. */
    List<String> channels(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().pubsubChannels();
        }
    }

    /** How many clients are subscribed to a channel on a node (pub/sub spans the node's databases). */
    long subscribers(int node, String channel) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().pubsubNumsub(channel).getOrDefault(channel, 0L);
        }
    }

    /** Runs any command on a node, e.g. {@code ACL SETUSER}; returns its status reply. */
    String command(int node, String name, String... arguments) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(CODEC);
            for (String argument : arguments) {
                args.add(argument);
            }
            return connection.sync().dispatch(io.lettuce.core.protocol.CommandType.valueOf(name),
                    new io.lettuce.core.output.StatusOutput<>(CODEC), args);
        }
    }

    /** Runs a Lua script with one key and one argument on a node; returns its integer reply. */
    long eval(int node, String script, String key, String argument) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            Long reply = connection.sync().eval(script, io.lettuce.core.ScriptOutputType.INTEGER, new String[] { key }, argument);
            return reply;
        }
    }

    /**
     * Sets {@code key} to {@code value} for {@code ttl} on a node and runs a script right after it in one transaction
     * (MULTI, EXEC), so that no other command comes in between; returns the script's integer reply.
     */
    long setThenEval(int node, String key, String value, Duration ttl, String script, String[] keys, String... args) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.setTimeout(Duration.ofSeconds(60)); // a script given many keys takes a while on a loaded machine
            io.lettuce.core.api.sync.RedisCommands<String, String> commands = connection.sync();
            commands.multi();
            commands.set(key, value, SetArgs.Builder.px(ttl.toMillis()));
            commands.eval(script, ScriptOutputType.INTEGER, keys, args);
            io.lettuce.core.TransactionResult result = commands.exec();
            return result.get(1);
        }
    }

    /** Drops every pub/sub connection on a node, as a network blip would. */
    void dropPubSubClients(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
        }
    }

    /** Drops a master's connections to its replicas (a replica reconnects unless it is paused). */
    void dropReplicas(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.typeSlave());
        }
    }

    /** A node's answer to {@code INFO section}. */
    String info(int node, String section) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().info(section);
        }
    }

    /** A node's role, the first element of its {@code ROLE} answer: {@code master}, {@code slave} or {@code sentinel}. */
    String role(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return String.valueOf(connection.sync().role().get(0));
        }
    }

    /** Writes a snapshot of the node's data set now (SAVE), to the file its {@code dbfilename} names. */
    void save(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().save();
        }
    }

    /** Sets a key on a node without a time to live. */
    void put(int node, String key, String value) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().set(key, value);
        }
    }

    long pttl(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().pttl(key);
        }
    }

    void set(int node, String key, String value, Duration ttl) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().set(key, value, SetArgs.Builder.px(ttl.toMillis()));
        }
    }

    /** The members of a sorted set on a node (e.g. the reader tokens of a read-write lock). */
    List<String> members(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().zrange(key, 0, -1);
        }
    }

    /** Adds a member to a sorted set on a node with a score of now + ttl by the node's clock, as a reader would. */
    void addReader(int node, String key, String token, Duration ttl) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            long nowMillis = connection.sync().time().stream().map(Long::parseLong).reduce((seconds, micros) -> seconds * 1000 + micros / 1000).orElseThrow();
            connection.sync().zadd(key, nowMillis + ttl.toMillis(), token);
            connection.sync().pexpire(key, ttl.toMillis());
        }
    }

    /**
     * How long each node will keep {@code token} under {@code key}, in node order: the key's PTTL when its
     * value is the token (a string key), the entry's remaining life when the token is a member (a sorted set
     * of readers), or -1 when the node does not hold the token. Read atomically on each node.
     */
    long[] remainingMillis(String key, String token) {
        long[] remaining = new long[this.uris.size()];
        for (int i = 0; i < remaining.length; i++) {
            StatefulRedisConnection<String, String> connection = this.kept.computeIfAbsent(i, this::connect);
            Long reply = connection.sync().eval(REMAINING, ScriptOutputType.INTEGER, new String[] { key }, token);
            remaining[i] = reply;
        }
        return remaining;
    }

    /** How many times each node ran EVAL or EVALSHA since {@link #resetStats()}, in node order. */
    long[] scriptCalls() {
        return calls("cmdstat_evalsha:", "cmdstat_eval:");
    }

    /**
     * How many times each node ran a script by its SHA (EVALSHA) since {@link #resetStats()}, in node order: the
     * lock's own commands, without the restart check's seldom bookkeeping, which runs scripts by their body (EVAL)
     * whenever a client connects or refreshes its records of the nodes.
     */
    long[] lockScriptCalls() {
        return calls("cmdstat_evalsha:");
    }

    /** How many PUBLISH calls each node ran (also from scripts) since {@link #resetStats()}. */
    long[] publishCalls() {
        return calls("cmdstat_publish:");
    }

    private long[] calls(String... commands) {
        long[] calls = new long[this.uris.size()];
        for (int i = 0; i < calls.length; i++) {
            try (StatefulRedisConnection<String, String> connection = connect(i)) {
                String stats = connection.sync().info("commandstats");
                for (String line : stats.split("\r?\n")) {
                    if (java.util.Arrays.stream(commands).anyMatch(line::startsWith)) {
                        String calledPart = line.substring(line.indexOf("calls=") + 6);
                        calls[i] += Long.parseLong(calledPart.substring(0, calledPart.indexOf(',')));
                    }
                }
            }
        }
        return calls;
    }

    /** Resets the command statistics of every node. */
    void resetStats() {
        for (int i = 0; i < this.uris.size(); i++) {
            try (StatefulRedisConnection<String, String> connection = connect(i)) {
                connection.sync().configResetstat();
            }
        }
    }

    /** Sends {@code SET key value NX PX ttl} to a node, as another Redlock client would; returns whether it set it. */
    boolean setIfAbsent(int node, String key, String value, Duration ttl) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return "OK".equals(connection.sync().set(key, value, SetArgs.Builder.nx().px(ttl.toMillis())));
        }
    }

    /** Sets a server parameter on a node (CONFIG SET). */
    void config(int node, String parameter, String value) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().configSet(parameter, value);
        }
    }

    /** Drops every client connection of a node but this call's own (CLIENT KILL TYPE normal). */
    void dropClients(int node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.typeNormal().skipme());
        }
    }

    /** Deletes a key on a node. */
    void delete(int node, String key) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            connection.sync().del(key);
        }
    }

    /** The keys on a node that match a pattern. */
    List<String> keys(int node, String pattern) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            return connection.sync().keys(pattern);
        }
    }

    /** Whether the key exists on each node, in node order. */
    List<Boolean> exists(String key) {
        List<Boolean> exists = new ArrayList<>();
        for (int i = 0; i < this.uris.size(); i++) {
            try (StatefulRedisConnection<String, String> connection = connect(i)) {
                exists.add(connection.sync().exists(key) == 1);
            }
        }
        return exists;
    }

    /** Values of the key on every node, in node order (null where absent). */
    List<String> values(String key) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < this.uris.size(); i++) {
            values.add(get(i, key));
        }
        return values;
    }

    /**
     * Waits until the key has these values on the nodes, in node order. A release returns once a quorum
     * answered, so the other nodes may lag behind by a round trip when read from another connection.
     */
    void awaitValues(String key, String... expected) {
        List<String> wanted = java.util.Arrays.asList(expected);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> values(key).equals(wanted));
    }

    /**
     * Waits until every node holds the key with this value: an acquisition returns at a quorum, and the
     * last nodes may apply their SET a moment later.
     */
    void awaitOnAll(String key, String value) {
        String[] values = new String[this.uris.size()];
        java.util.Arrays.fill(values, value);
        awaitValues(key, values);
    }

    /** Waits until no node holds the key. */
    void awaitAbsent(String key) {
        awaitValues(key, new String[this.uris.size()]);
    }

    private StatefulRedisConnection<String, String> connect(int node) {
        RedisURI uri = RedisURI.create(this.uris.get(node));
        uri.setTimeout(Duration.ofSeconds(5));
        return this.client.connect(CODEC, uri);
    }

    @Override
    public void close() {
        this.kept.values().forEach(StatefulRedisConnection::close);
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

}
