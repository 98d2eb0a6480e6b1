package io.github.redlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * Makes one Redis Cluster of freshly started, empty cluster-enabled nodes, over RESP as {@code redis-cli --cluster
 * create} would, so that it works with any {@code redis-server} binary alone: each master gets its own config epoch
 * and an equal share of the 16384 slots ({@code CLUSTER ADDSLOTSRANGE}, or {@code ADDSLOTS} before Redis 7), the
 * first node meets every other one, and each replica replicates its master once it has heard of it.
 */
final class ClusterFormation {

    static final int SLOTS = 16384;

    /** The cluster bus listens on the client port plus this; Redis 6.2 has no {@code cluster-port} to choose another. */
    static final int BUS_PORT_OFFSET = 10000;

    private static final int HIGHEST_PORT = 65535;

    private ClusterFormation() {
    }

    /**
     * Forms the cluster.
     * @param nodes the masters first, then the replicas of the first master, those of the second, and so on
     * @return each node's cluster id, in the order of {@code nodes}
     */
    static Map<RedisNode, String> form(List<RedisNode> nodes, int masters, int replicasPerMaster, Duration bound) {
        Map<RedisNode, String> ids = new LinkedHashMap<>();
        for (RedisNode node : nodes) {
            ids.put(node, String.valueOf(expect(node, String.class, "CLUSTER", "MYID")));
        }
        for (int i = 0; i < masters; i++) {
            RedisNode master = nodes.get(i);
            expect(master, String.class, "CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
            addSlots(master, i * SLOTS / masters, (i + 1) * SLOTS / masters - 1);
        }
        RedisNode first = nodes.get(0);
        for (RedisNode other : nodes.subList(1, nodes.size())) {
            expect(first, String.class, "CLUSTER", "MEET", "127.0.0.1", String.valueOf(other.port()));
        }
        for (int j = 0; j < masters * replicasPerMaster; j++) {
            replicate(nodes.get(masters + j), ids.get(nodes.get(j / replicasPerMaster)), bound);
        }
        return ids;
    }

    private static void addSlots(RedisNode master, int first, int last) {
        Object reply = master.call("CLUSTER", "ADDSLOTSRANGE", String.valueOf(first), String.valueOf(last));
        if (reply instanceof Resp.ErrorReply error && error.message().contains("Unknown subcommand")) {
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS")); // Redis 6.2
            for (int slot = first; slot <= last; slot++) {
                command.add(String.valueOf(slot));
            }
            reply = master.call(command.toArray(String[]::new));
        }
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("CLUSTER ADDSLOTS " + first + "-" + last + " on " + master.hostAndPort()
                    + " answered " + reply);
        }
    }

    /** Makes {@code replica} replicate the master of {@code masterId} once it knows that id through gossip. */
    private static void replicate(RedisNode replica, @Nullable String masterId, Duration bound) {
        AtomicReference<@Nullable Object> last = new AtomicReference<>();
        boolean done = Poll.holdsWithin(bound, Duration.ofMillis(50), () -> {
            Object reply = replica.call("CLUSTER", "REPLICATE", String.valueOf(masterId));
            last.set(reply);
            return "OK".equals(reply); // "-ERR Unknown node" until the MEET reached it
        });
        if (!done) {
            throw new IllegalStateException("CLUSTER REPLICATE " + masterId + " on " + replica.hostAndPort()
                    + " still answered " + last.get() + " after " + bound.toSeconds() + " s");
        }
    }

    /**
     * Sends a command and returns its reply, which must be of the given type (an error reply never is).
     * @throws IllegalStateException naming the node, the command and the reply otherwise
     */
    static <T> T expect(RedisNode node, Class<T> type, String... command) {
        Object reply = node.call(command);
        if (!type.isInstance(reply)) {
            throw new IllegalStateException(String.join(" ", command) + " on " + node.hostAndPort() + " answered " + reply);
        }
        return type.cast(reply);
    }

    /**
     * Returns a free loopback port whose cluster bus port (plus 10000) is free too and below 65536.
     * @throws IllegalStateException when 100 tries found none
     */
    static int freePort() {
        for (int i = 0; i < 100; i++) {
            int port = RedisNode.freePort();
            if (port + BUS_PORT_OFFSET <= HIGHEST_PORT && isFree(port + BUS_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("Cannot find a free loopback port p with p + " + BUS_PORT_OFFSET
                + " free too, for a cluster node and its bus");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort() == port;
        }
        catch (IOException ex) {
            return false;
        }
    }

}
