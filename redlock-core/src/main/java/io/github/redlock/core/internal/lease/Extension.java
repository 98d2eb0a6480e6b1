package io.github.redlock.core.internal.lease;

/**
 * Who asked for an extension of a lease: its holder, or its automatic extension (which observations tell apart).
 */
public enum Extension {

    /** The holder called {@code RedlockLease.extend}. */
    REQUESTED,

    /** The lease's automatic extension ({@code autoExtend}) asked. */
    AUTOMATIC

}
