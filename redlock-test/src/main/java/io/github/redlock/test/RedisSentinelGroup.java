package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A local Sentinel-managed group of real processes: a master, its replicas and sentinels ({@code redis-server
 * --sentinel}) that monitor it under one name, each process on its own free loopback port with its own working
 * directory. The sentinels consider the master down after 2 s without an answer ({@code down-after-milliseconds})
 * and give a failover 10 s ({@code failover-timeout}); a majority of them is the quorum.
 *
 * <pre>{@code
 * try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
 *     RedisURI uri = RedisURI.create(group.uri());   // redis-sentinel://127.0.0.1:s1,…#redlock
 *     RedisNode promoted = group.failover();          // a replica becomes the master, as Sentinel does it
 * }
 * }</pre>
 *
 * After a failover the old master, if it still runs, is a master on its own until the sentinels turn it into a
 * replica of the new one, some 10 s later (a sentinel waits 8 s before it reconfigures a node that claims to be a
 * master): a client that is still connected to it may write there meanwhile, as in production.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private static final Pattern MASTER_NAME = Pattern.compile("[A-Za-z0-9._-]+");

    private final String masterName;

    private final List<RedisNode> servers;

    private final List<RedisNode> sentinels;

    private RedisSentinelGroup(String masterName, List<RedisNode> servers, List<RedisNode> sentinels) {
        this.masterName = masterName;
        this.servers = List.copyOf(servers);
        this.sentinels = List.copyOf(sentinels);
    }

    /**
     * Starts a group named {@code redlock} of a master, 1 replica and 3 sentinels (quorum 2), and waits until it is
     * settled, as {@link #start(String, int, int)} does.
     * @return the running group
     * @throws IllegalStateException when a process does not start or the group does not settle within 30 s
     */
    public static RedisSentinelGroup start() {
        return start("redlock", 1, 3);
    }

    /**
     * Starts a group and waits (up to 30 s) until every sentinel monitors the master, sees every replica in sync
     * with it, and knows every other sentinel.
     * @param masterName the name under which the sentinels monitor the master (letters, digits, {@code . _ -})
     * @param replicas how many replicas, 0 or more; at least 1 for a failover
     * @param sentinels how many sentinels, at least 1; a majority of them is the quorum
     * @return the running group
     * @throws IllegalArgumentException when an argument is out of range
     * @throws IllegalStateException when a process does not start or the group does not settle within 30 s
     * (processes already started are stopped)
     */
    public static RedisSentinelGroup start(String masterName, int replicas, int sentinels) {
        if (!MASTER_NAME.matcher(masterName).matches() || replicas < 0 || sentinels < 1) {
            throw new IllegalArgumentException("A Sentinel group needs a master name of letters, digits, '.', '_' or '-', "
                    + "0 or more replicas and at least 1 sentinel, was '" + masterName + "', " + replicas + " and " + sentinels);
        }
        List<RedisNode> servers = new ArrayList<>();
        List<RedisNode> watchers = new ArrayList<>();
        try {
            RedisNode master = RedisNode.launchUnready(RedisNode.createDirectory(), server(List.of()));
            servers.add(master);
            master.awaitReady(); // its port is final once it answers
            RedisNode.Launch replica = server(List.of("--replicaof", "127.0.0.1", String.valueOf(master.port())));
            for (int i = 0; i < replicas; i++) {
                servers.add(RedisNode.launchUnready(RedisNode.createDirectory(), replica));
            }
            servers.forEach(RedisNode::awaitReady);
            // Sentinels learn of replicas from the master's INFO, every 10 s: they had better be there at the first one.
            awaitReplicasInSync(master, replicas);
            for (int i = 0; i < sentinels; i++) {
                watchers.add(launchSentinel(masterName, master.port(), sentinels / 2 + 1));
            }
            watchers.forEach(RedisNode::awaitReady);
            RedisSentinelGroup group = new RedisSentinelGroup(masterName, servers, watchers);
            group.awaitSettled(master);
            return group;
        }
        catch (RuntimeException ex) {
            watchers.forEach(RedisNode::close);
            servers.forEach(RedisNode::close);
            throw ex;
        }
    }

    private static void awaitReplicasInSync(RedisNode master, int replicas) {
        AtomicReference<@Nullable Object> info = new AtomicReference<>();
        boolean done = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            info.set(master.call("INFO", "replication"));
            return String.valueOf(info.get()).contains("connected_slaves:" + replicas + "\r\n")
                    && String.valueOf(info.get()).split("state=online").length - 1 == replicas;
        });
        if (!done) {
            throw new IllegalStateException("The replicas of " + master + " were not all in sync within "
                    + SETTLE_TIMEOUT.toSeconds() + " s; its INFO replication says:\n" + info.get());
        }
    }

    /** A server of the group; Redis 7 would wait 5 s for more replicas before a full sync, 0 s here. */
    private static RedisNode.Launch server(List<String> options) {
        List<String> all = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
        all.addAll(options);
        return new RedisNode.Launch(List.of(), all, RedisNode.Launch.STANDALONE.readyLine(), RedisNode::freePort);
    }

    private static RedisNode launchSentinel(String masterName, int masterPort, int quorum) {
        Path directory = RedisNode.createDirectory();
        Path config = directory.resolve("sentinel.conf"); // a sentinel rewrites its own file with what it learns
        String monitored = "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum + "\n"
                + "sentinel down-after-milliseconds " + masterName + " 2000\n"
                + "sentinel failover-timeout " + masterName + " 10000\n"
                + "sentinel parallel-syncs " + masterName + " 1\n";
        try {
            Files.writeString(config, monitored, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot write " + config, ex);
        }
        return RedisNode.launchUnready(directory, new RedisNode.Launch(List.of(config.toString(), "--sentinel"),
                List.of(), "Sentinel ID is", RedisNode::freePort));
    }

    /**
     * Returns the name under which the sentinels monitor the master.
     * @return the master name
     */
    public String masterName() {
        return this.masterName;
    }

    /**
     * Returns the group as Lettuce's Sentinel URI, which is also a Redlock node entry: every sentinel's host and port
     * and the master name, e.g. {@code redis-sentinel://127.0.0.1:41234,127.0.0.1:41235,127.0.0.1:41236#redlock}.
     * @return the URI
     */
    public String uri() {
        return this.sentinels.stream().map(RedisNode::hostAndPort)
                .collect(Collectors.joining(",", "redis-sentinel://", "#" + this.masterName));
    }

    /**
     * Returns the master now, as the first sentinel that answers reports it.
     * @return the master
     * @throws IllegalStateException when no sentinel answers
     */
    public RedisNode master() {
        for (RedisNode sentinel : this.sentinels) {
            OptionalInt port = SentinelQueries.masterPort(sentinel, this.masterName);
            if (port.isPresent()) {
                return server(port.getAsInt());
            }
        }
        throw new IllegalStateException("No sentinel of " + this + " answered SENTINEL GET-MASTER-ADDR-BY-NAME "
                + this.masterName);
    }

    /**
     * Returns the Redis servers other than {@link #master()}, in start order (an old master among them may not be a
     * replica yet, see the class description).
     * @return an unmodifiable list
     * @throws IllegalStateException when no sentinel answers
     */
    public List<RedisNode> replicas() {
        RedisNode master = master();
        return this.servers.stream().filter((server) -> server != master).toList();
    }

    /**
     * Returns every Redis server of the group, sentinels aside, in start order: the first master, then the replicas.
     * @return an unmodifiable list
     */
    public List<RedisNode> servers() {
        return this.servers;
    }

    /**
     * Returns the sentinels, in the order of {@link #uri()}.
     * @return an unmodifiable list
     */
    public List<RedisNode> sentinels() {
        return this.sentinels;
    }

    /**
     * Makes the sentinels fail over ({@code SENTINEL FAILOVER}, sent again while they answer that no replica is
     * fit yet) and waits until they report a new master that answers {@code ROLE} as a master.
     * @return the new master
     * @throws IllegalStateException when a failover is in progress already, no replica can be promoted, or the
     * sentinels do not agree on a new master, within 30 s
     */
    public RedisNode failover() {
        RedisNode previous = master();
        AtomicReference<@Nullable Object> reply = new AtomicReference<>();
        boolean started = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            reply.set(firstAnswering().call("SENTINEL", "FAILOVER", this.masterName));
            if (reply.get() instanceof Resp.ErrorReply error && !error.message().startsWith("NOGOODSLAVE")) {
                throw new IllegalStateException("SENTINEL FAILOVER " + this.masterName + " answered " + error
                        + (error.message().startsWith("INPROG") ? "; awaitFailover(master) waits for a failover" : ""));
            }
            return "OK".equals(reply.get());
        });
        if (!started) {
            throw new IllegalStateException("SENTINEL FAILOVER " + this.masterName + " still answered " + reply.get()
                    + " after " + SETTLE_TIMEOUT.toSeconds() + " s: no replica of " + previous + " can be promoted");
        }
        return awaitFailover(previous);
    }

    /**
     * Waits (up to 30 s) until every running sentinel reports the same master other than {@code previous} and that
     * node answers {@code ROLE} as a master: after {@link #killMaster()}, the sentinels notice within 2 s and elect one
     * of them to promote a replica.
     * @param previous the master that was replaced or is to be
     * @return the new master
     * @throws IllegalStateException when the sentinels do not agree on a new master in time
     */
    public RedisNode awaitFailover(RedisNode previous) {
        AtomicReference<String> reports = new AtomicReference<>("none");
        AtomicReference<@Nullable RedisNode> promoted = new AtomicReference<>();
        boolean done = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            List<OptionalInt> ports = this.sentinels.stream().filter((sentinel) -> sentinel.isRunning() && !sentinel.isPaused())
                    .map((sentinel) -> SentinelQueries.masterPort(sentinel, this.masterName)).toList();
            reports.set(ports.toString());
            OptionalInt port = ports.isEmpty() ? OptionalInt.empty() : ports.get(0);
            if (port.isEmpty() || port.getAsInt() == previous.port() || ports.stream().anyMatch((other) -> !other.equals(port))) {
                return false;
            }
            RedisNode candidate = server(port.getAsInt());
            promoted.set(candidate);
            return SentinelQueries.isMaster(candidate);
        });
        RedisNode result = promoted.get();
        if (!done || result == null) {
            throw new IllegalStateException("The sentinels of " + this + " did not agree on a master other than "
                    + previous + " that answers ROLE as one within " + SETTLE_TIMEOUT.toSeconds()
                    + " s; the master ports they reported last: " + reports.get());
        }
        return result;
    }

    /**
     * Kills the master now with SIGKILL, as a crash would; the sentinels then fail over on their own
     * ({@link #awaitFailover(RedisNode)} waits for it), and {@link RedisNode#restart()} brings the node back empty.
     * @return the killed node
     * @throws IllegalStateException when no sentinel answers
     */
    public RedisNode killMaster() {
        RedisNode master = master();
        master.kill();
        return master;
    }

    /**
     * Stops every process (SIGKILL), sentinels first, and deletes their working directories.
     */
    @Override
    public void close() {
        this.sentinels.forEach(RedisNode::close);
        this.servers.forEach(RedisNode::close);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[" + this.masterName + ", servers=" + this.servers + ", sentinels=" + this.sentinels + "]";
    }

    private void awaitSettled(RedisNode master) {
        AtomicReference<@Nullable String> problem = new AtomicReference<>();
        boolean done = Poll.holdsWithin(SETTLE_TIMEOUT, POLL_INTERVAL, () -> {
            try {
                problem.set(this.sentinels.stream().map((sentinel) -> SentinelQueries.settledProblem(sentinel,
                        this.masterName, master.port(), this.servers.size() - 1, this.sentinels.size() - 1))
                        .filter((reason) -> reason != null).findFirst().orElse(null));
            }
            catch (RuntimeException ex) {
                problem.set(ex.getMessage());
            }
            return problem.get() == null;
        });
        if (!done) {
            throw new IllegalStateException("The Sentinel group " + this + " did not settle within "
                    + SETTLE_TIMEOUT.toSeconds() + " s: " + problem.get());
        }
    }

    private RedisNode firstAnswering() {
        return this.sentinels.stream().filter((sentinel) -> sentinel.isRunning() && !sentinel.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("No sentinel of " + this + " runs"));
    }

    private RedisNode server(int port) {
        return this.servers.stream().filter((server) -> server.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("The sentinels name 127.0.0.1:" + port
                        + " as the master, not a server of " + this));
    }

}
