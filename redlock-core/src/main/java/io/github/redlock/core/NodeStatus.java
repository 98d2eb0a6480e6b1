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
 * @param owedReleases how many releases (and clean-ups of failed attempts) this client owes the node: refused or unsent
 * while it was unreachable, to be sent once it answers again, unless their keys expired first; a number that keeps
 * growing is a node this client has not reached for long
 */
public record NodeStatus(State state, Duration quarantinedFor, String reason, List<String> servers, int owedReleases) {

    /**
     * A status that owes the node no release.
     * @param state whether the node votes
     * @param quarantinedFor how much longer a quarantined node waits; zero in the other states
     * @param reason why the node does not vote, or an empty string when it does
     * @param servers the servers that answer for the node, where they differ from its name
     */
    public NodeStatus(State state, Duration quarantinedFor, String reason, List<String> servers) {
        this(state, quarantinedFor, reason, servers, 0);
    }

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
     * @param owedReleases how many releases this client owes the node, not negative
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
