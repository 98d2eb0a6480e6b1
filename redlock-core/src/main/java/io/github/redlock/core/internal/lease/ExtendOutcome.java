package io.github.redlock.core.internal.lease;

/**
 * What one extension of a lease achieved, as the lease and its automatic extension act on it.
 */
public enum ExtendOutcome {

    /** A quorum of nodes confirmed the key for the new ttl within validity. */
    EXTENDED,

    /** No quorum confirmed it in time (nodes slow, unreachable, or a few without the key); worth another try. */
    NOT_EXTENDED,

    /** So many nodes answered that the key is no longer this lease's that no quorum ever can again: lost. */
    REFUSED

}
