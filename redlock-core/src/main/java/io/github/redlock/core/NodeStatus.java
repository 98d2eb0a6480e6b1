package io.github.redlock.core;

import java.time.Duration;

/**
 * What one node is to the lock now, as {@link Redlock#nodeStatuses()} reports it.
 *
 * @param state whether the node votes
 * @param quarantinedFor how much longer a quarantined node waits before it votes ({@code ChronoUnit.FOREVER}'s
 * duration for a node that is not an independent master); zero in the other states
 * @param reason why the node does not vote, or an empty string when it does
 */
public record NodeStatus(State state, Duration quarantinedFor, String reason) {

    /** Whether a node votes. */
    public enum State {

        /** Connected and voting. */
        UP,

        /** Not connected (or not yet checked since it connected): counts as "no". */
        DOWN,

        /** Connected, but restarted recently (or not an independent master): counts as "no" until the time is up. */
        QUARANTINED

    }

}
