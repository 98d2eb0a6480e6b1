/**
 * A Jepsen-style chaos run of the Redlock core: client processes lock contended keys on five real nodes and
 * write to a storage (a PostgreSQL table whose fenced writes {@code JdbcFence} guards) while faults are injected, and
 * a checker looks for overlapping grants, fencing tokens out of order, stale writes accepted, and keys that stay
 * unavailable after the faults. Not a library: a tool and its tests ({@code docs/evidence/chaos.md}).
 */
package io.github.redlock.chaos;
