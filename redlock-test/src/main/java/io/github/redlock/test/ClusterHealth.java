package io.github.redlock.test;

import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What keeps a local cluster from being whole, or a promotion from being done, as the nodes themselves report it:
 * each check returns null when all is well, else the first problem found, in words, for the harness's timeout errors.
 */
final class ClusterHealth {

    private ClusterHealth() {
    }

    /** Returns what {@code node} (which must run) sees of the cluster. */
    static ClusterView view(RedisNode node) {
        return ClusterView.parse(ClusterFormation.expect(node, String.class, "CLUSTER", "NODES"));
    }

    /**
     * Checks that every node runs, reports {@code cluster_state:ok} with every slot served, knows every node without
     * doubt, sees {@code masters} masters, all serving slots, and every other node as a replica, and, as a replica, is
     * in sync with its master.
     */
    static @Nullable String healthProblem(List<RedisNode> nodes, int masters) {
        for (RedisNode node : nodes) {
            String problem;
            try {
                problem = nodeProblem(node, nodes.size(), masters);
            }
            catch (RuntimeException ex) {
                problem = "it does not answer as expected: " + ex.getMessage();
            }
            if (problem != null) {
                return node.hostAndPort() + ": " + problem;
            }
        }
        return null;
    }

    private static @Nullable String nodeProblem(RedisNode node, int size, int masters) {
        if (!node.isRunning() || node.isPaused()) {
            return "it is down or paused";
        }
        String info = ClusterFormation.expect(node, String.class, "CLUSTER", "INFO");
        if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:" + ClusterFormation.SLOTS)) {
            return "CLUSTER INFO does not say cluster_state:ok with every slot ok";
        }
        ClusterView view = view(node);
        if (view.entries().size() != size) {
            return "it knows " + view.entries().size() + " of the " + size + " nodes";
        }
        for (ClusterView.Entry entry : view.entries()) {
            if (entry.isTroubled() || !entry.connected()) {
                return "it sees 127.0.0.1:" + entry.port() + " as " + entry.flags() + (entry.connected() ? "" : ", disconnected");
            }
        }
        long seenAsMasters = view.entries().stream().filter(ClusterView.Entry::isMaster).count();
        if (view.slotOwners().size() != masters || seenAsMasters != masters) {
            return "it sees " + seenAsMasters + " masters, " + view.slotOwners().size() + " serving slots, not " + masters
                    + " (a replica it has not heard of as one yet is a master without slots)";
        }
        Optional<ClusterView.Entry> self = view.entries().stream().filter((entry) -> entry.flags().contains("myself")).findFirst();
        if (self.isPresent() && !self.get().isMaster()
                && !ClusterFormation.expect(node, String.class, "INFO", "replication").contains("master_link_status:up")) {
            return "it is a replica not in sync with its master yet";
        }
        return null;
    }

    /**
     * Checks that every running node that is not paused sees {@code candidate} as a master serving slots, no longer
     * sees {@code master} serving slots (and sees it as the candidate's replica, if it runs), and reports
     * {@code cluster_state:ok}.
     */
    static @Nullable String promotionProblem(List<RedisNode> nodes, RedisNode candidate, String candidateId,
            RedisNode master, String masterId) {
        if (!candidate.isRunning() || candidate.isPaused()) {
            return candidate + " is down or paused";
        }
        for (RedisNode node : nodes) {
            if (!node.isRunning() || node.isPaused()) {
                continue;
            }
            try {
                ClusterView view = view(node);
                if (!view.byId(candidateId).map((entry) -> entry.isMaster() && entry.ownsSlots()).orElse(false)) {
                    return node.hostAndPort() + " does not see " + candidate.hostAndPort() + " as a master yet";
                }
                if (view.byId(masterId).map((entry) -> entry.isMaster() && entry.ownsSlots()).orElse(false)) {
                    return node.hostAndPort() + " still sees " + master.hostAndPort() + " serving slots";
                }
                boolean demoted = view.byId(masterId).map((entry) -> candidateId.equals(entry.masterId())).orElse(false);
                if (master.isRunning() && !master.isPaused() && !demoted) {
                    return node.hostAndPort() + " does not see " + master.hostAndPort() + " as a replica of "
                            + candidate.hostAndPort() + " yet";
                }
                if (!ClusterFormation.expect(node, String.class, "CLUSTER", "INFO").contains("cluster_state:ok")) {
                    return node.hostAndPort() + " does not report cluster_state:ok";
                }
            }
            catch (RuntimeException ex) {
                return node.hostAndPort() + " does not answer as expected: " + ex.getMessage();
            }
        }
        return null;
    }

}
