package io.github.redlock.core.internal.node;

import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * The view a cluster node routes by: its masters in slot order with their connections, which serves each slot (null
 * before any view), the view's signature and the slots served by none ({@link ClusterView}), and the masters as the
 * node's status names them. Replaced whole when the view changes, so that one read of it is consistent.
 */
record ClusterRoutes(List<ClusterMaster> masters, NodeConnection @Nullable [] bySlot, String signature, @Nullable String uncovered,
        List<String> servers) {

    /** Before any view was read: no master, no slot served. */
    static final ClusterRoutes NONE = new ClusterRoutes(List.of(), null, "", "no cluster view read yet", List.of());

    /**
     * The routes of a parsed view through the given masters' connections.
     * @param masters one per master of {@code view}, in its order
     */
    static ClusterRoutes of(ClusterView view, List<ClusterMaster> masters) {
        NodeConnection[] bySlot = new NodeConnection[SlotHash.SLOT_COUNT];
        for (int i = 0; i < masters.size(); i++) {
            for (int slot : view.masters().get(i).slots()) {
                bySlot[slot] = masters.get(i).connection;
            }
        }
        return new ClusterRoutes(List.copyOf(masters), bySlot, view.signature(), view.uncovered(),
                view.masters().stream().map(ClusterView.Master::described).toList());
    }

    /** Whether there are masters and each one's connection is up (with its scripts loaded, if {@code withScripts}). */
    boolean allConnected(boolean withScripts) {
        return !this.masters.isEmpty() && this.masters.stream().allMatch((master) -> master.connection.isConnected()
                && (!withScripts || master.connection.scriptsLoaded()));
    }

}
