package io.github.redlock.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.jspecify.annotations.Nullable;

/**
 * What a sentinel knows of the master it monitors ({@code SENTINEL MASTER}, {@code SENTINEL REPLICAS},
 * {@code SENTINEL GET-MASTER-ADDR-BY-NAME}), read over RESP; each check returns null when all is well, else the
 * problem in words, for the harness's timeout errors.
 */
final class SentinelQueries {

    private SentinelQueries() {
    }

    /**
     * Returns the port of the master the sentinel reports for {@code name}, or nothing when it does not answer.
     */
    static OptionalInt masterPort(RedisNode sentinel, String name) {
        try {
            if (sentinel.isRunning() && !sentinel.isPaused()
                    && sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name) instanceof List<?> address
                    && address.size() == 2) {
                return OptionalInt.of(Integer.parseInt(String.valueOf(address.get(1))));
            }
        }
        catch (RuntimeException ex) {
            // Down, or not answering in time: no answer.
        }
        return OptionalInt.empty();
    }

    /**
     * Checks that the sentinel monitors {@code name} at {@code masterPort} with nothing wrong (no subjective or
     * objective down, no failover in progress), knows {@code replicas} replicas in sync with it, and
     * {@code otherSentinels} other sentinels.
     */
    static @Nullable String settledProblem(RedisNode sentinel, String name, int masterPort, int replicas, int otherSentinels) {
        Map<String, String> master = fields(sentinel.call("SENTINEL", "MASTER", name));
        String problem = null;
        if (!String.valueOf(masterPort).equals(master.get("port")) || !"master".equals(master.get("flags"))) {
            problem = "it sees the master at port " + master.get("port") + " with flags " + master.get("flags");
        }
        else if (!String.valueOf(replicas).equals(master.get("num-slaves"))) {
            problem = "it knows " + master.get("num-slaves") + " of the " + replicas + " replicas";
        }
        else if (!String.valueOf(otherSentinels).equals(master.get("num-other-sentinels"))) {
            problem = "it knows " + master.get("num-other-sentinels") + " of the " + otherSentinels + " other sentinels";
        }
        else if (sentinel.call("SENTINEL", "REPLICAS", name) instanceof List<?> known) {
            for (Object replica : known) {
                Map<String, String> fields = fields(replica);
                if (!"slave".equals(fields.get("flags")) || !"ok".equals(fields.get("master-link-status"))) {
                    problem = "it sees the replica at port " + fields.get("port") + " with flags " + fields.get("flags")
                            + " and master link " + fields.get("master-link-status");
                    break;
                }
            }
        }
        return (problem != null) ? sentinel.hostAndPort() + ": " + problem : null;
    }

    /** Returns whether the node answers {@code ROLE} as a master. */
    static boolean isMaster(RedisNode node) {
        try {
            return node.isRunning() && !node.isPaused() && node.call("ROLE") instanceof List<?> role && !role.isEmpty()
                    && "master".equals(role.get(0));
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** Turns a flat array of names and values (as {@code SENTINEL MASTER} answers) into a map. */
    static Map<String, String> fields(@Nullable Object reply) {
        if (!(reply instanceof List<?> list)) {
            throw new IllegalStateException("Expected an array of names and values, the sentinel answered " + reply);
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < list.size(); i += 2) {
            fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return fields;
    }

}
