package io.github.redlock.core;

import java.time.Duration;
import java.util.List;

/**
 * What one node is to the lock now, as {@link Redlock#nodeStatuses()} reports it.
 *
 * @param state whether the node votes
 * @param quarantinedFor how much longer a quarantined node waits before it votes ({@code ChronoUnit.FOREVER}'s
 * duration for a node that is not an independent master); zero in the other states
 * @param reason why the node does not vote, or an empty string when it does
 * @param servers the servers that answer for the node now, where they differ from its name: a Redis Cluster node's
 * masters, each as {@code host:port} and the hash slots it serves (e.g. {@code 10.0.2.1:6379 slots 0-5460}), in slot
 * order; a Sentinel group's master, {@code host:port}, while connected; empty for a single server (its name is its
 * address)
 */
public record NodeStatus(State state, Duration quarantinedFor, String reason, List<String> servers) {

    /**
     * A status without servers of its own: a single server's.
     * @param state whether the node votes
     * @param quarantinedFor how much longer a quarantined node waits; zero in the other states
     * @param reason why the node does not vote, or an empty string when it does
     */
    public NodeStatus(State state, Duration quarantinedFor, String reason) {
        this(state, quarantinedFor, reason, List.of());
    }

    /**
     * Checks the components.
     * @param state whether the node votes
     * @param quarantinedFor how much longer a quarantined node waits; zero in the other states
     * @param reason why the node does not vote, or an empty string when it does
     * @param servers the servers that answer for the node, where they differ from its name
     */
    public NodeStatus {
        servers = List.copyOf(servers);
    }

    /** Whether a node votes. */
    public enum State {

        /** Connected and voting. */
        UP,

        /**
         * Not connected (or not yet checked since it connected; or, for a Sentinel group, its master not confirmed lately by
         * a majority of its sentinels): counts as "no".
         */
        DOWN,

        /** Connected, but restarted recently (or not an independent master): counts as "no" until the time is up. */
        QUARANTINED

    }

}
