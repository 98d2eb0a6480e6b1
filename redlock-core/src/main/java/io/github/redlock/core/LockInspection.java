package io.github.redlock.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What the nodes hold of one lock, as {@link Redlock#inspect(String)} read it: per node, and whether a quorum holds
 * it. A snapshot read without writing anything, each node at a slightly different moment; it may be out of date as
 * soon as it is returned.
 * @param key the lock's name as the application writes it, without the key prefix
 * @param held whether a quorum of the voting nodes holds the lock with one token (an exclusive or write lock), or has
 * live readers (a read lock)
 * @param holder the instance id that holds it where {@code held} and one token holds it: the {@code instanceId} of the
 * Redlock that took it, or {@code "unknown"} for a token of another client (or of a version before instance ids);
 * null when it is not held, or held by readers
 * @param nodes each node's part, in the order the nodes are configured
 */
public record LockInspection(String key, boolean held, @Nullable String holder, List<Node> nodes) {

    /** The holder of a token that names none: another Redlock client's, or one of a version before instance ids. */
    public static final String UNKNOWN_HOLDER = "unknown";

    /**
     * One node's part of a lock.
     * @param node the node's name ({@code host:port}, its URI's user-info never included)
     * @param state whether it holds the lock, or does not vote now
     * @param kind the kind of lock it holds, or null when it holds none (or could not be read)
     * @param remainingMillis how long it keeps the lock (for readers: the last live reader), 0 when it holds none
     * @param holder the instance id in the token it holds ({@link #UNKNOWN_HOLDER} for a foreign token), or null when it
     * holds none, or holds readers
     * @param readers how many live readers it holds, for a read lock; 0 otherwise
     */
    public record Node(String node, State state, @Nullable Kind kind, long remainingMillis, @Nullable String holder, int readers) {

    }

    /** A node's state for one lock. */
    public enum State {

        /** The node votes, and holds the lock. */
        HELD,

        /** The node votes, and holds nothing of the lock. */
        FREE,

        /** The node does not vote now: not connected, not checked, or not confirmed lately (see {@link Redlock#nodeStatuses()}). */
        DOWN,

        /** The node waits out its restart quarantine (see {@link Redlock#nodeStatuses()}); what it holds is still shown. */
        QUARANTINED

    }

    /** The kind of lock a node holds under the name. */
    public enum Kind {

        /** An exclusive lock, alone or as one of the keys of a lock on several keys. */
        EXCLUSIVE,

        /** The read lock: one or more readers. */
        READ,

        /** The write lock. */
        WRITE

    }

}
