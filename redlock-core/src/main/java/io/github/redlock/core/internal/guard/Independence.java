package io.github.redlock.core.internal.guard;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Whether the nodes of a list are independent masters, as a pure function ({@link #check}): a replica does not vote, and
 * of two entries that reach one server process (two addresses of one server; a master of a cluster listed again on its
 * own, or in a second entry of the same cluster), the one listed first votes. A quorum of such nodes is not a real one.
 * {@link RestartGuard} applies it each time a node is checked, with the {@code run_id}s it has seen on the others.
 */
final class Independence {

    private Independence() {
    }

    /**
     * What a check of node {@code index} finds.
     * @param reason why the node itself does not vote, or null when it may
     * @param later the nodes listed after it that reach the same server, by index, each with why it does not vote
     */
    record Finding(@Nullable String reason, Map<Integer, String> later) {

        Finding {
            later = Map.copyOf(later);
        }

    }

    /**
     * Checks node {@code index} against the others.
     * @param index the node checked
     * @param master whether it answered as a master
     * @param runId its {@code run_id} (a cluster node's: its masters' joined by {@code +})
     * @param names every node's name, in the order of the list
     * @param seenRunIds the {@code run_id} this client saw last on each node, null where it saw none
     * @return the finding
     */
    static Finding check(int index, boolean master, String runId, List<String> names, List<@Nullable String> seenRunIds) {
        if (!master) {
            return new Finding("a replica, not a master: Redlock needs independent masters", Map.of());
        }
        for (int j = 0; j < index; j++) {
            if (sharesServer(runId, seenRunIds.get(j))) {
                return new Finding("the same server as " + names.get(j) + " (run_id " + runId + "), listed twice", Map.of());
            }
        }
        Map<Integer, String> later = new LinkedHashMap<>();
        for (int j = index + 1; j < names.size(); j++) {
            if (sharesServer(runId, seenRunIds.get(j))) {
                later.put(j, "the same server as " + names.get(index) + " (run_id " + runId + "), listed twice");
            }
        }
        return new Finding(null, later);
    }

    /**
     * Whether two nodes' {@code run_id}s name a server process in common: a cluster node's is the {@code run_id}s of its
     * masters joined by {@code +}, so a master of it listed again as a node of its own, or in a second entry of the same
     * cluster, is found.
     */
    static boolean sharesServer(String runId, @Nullable String other) {
        if (other == null) {
            return false;
        }
        if (runId.equals(other)) {
            return true;
        }
        if (runId.indexOf('+') < 0 && other.indexOf('+') < 0) {
            return false;
        }
        Set<String> servers = new HashSet<>(Arrays.asList(runId.split("\\+")));
        for (String server : other.split("\\+")) {
            if (servers.contains(server)) {
                return true;
            }
        }
        return false;
    }

}
