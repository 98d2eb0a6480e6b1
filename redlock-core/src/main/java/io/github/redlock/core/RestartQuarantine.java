package io.github.redlock.core;

/**
 * When a node that restarted may vote again: the "delayed restart" rule of the Redlock description. A node
 * that restarted without its keys could otherwise help a second client take a lock that a first client
 * still holds (the first held it on a bare majority that included this node). A quarantined node gets
 * releases and clean-ups, but no acquisitions, until it has been up for the lock's {@code maxTtl} (plus the
 * clock drift allowance and a second for the resolution of {@code uptime_in_seconds}).
 */
public enum RestartQuarantine {

    /**
     * Quarantine a node whose {@code run_id} differs from one that a client recorded for it recently: it
     * restarted while in use. Clients record each node's {@code run_id}, when they last saw it and their own
     * {@code maxTtl} on the other nodes, so a client started after the restart knows it too; the node waits for
     * the longest {@code maxTtl} recorded (a fleet's clients may differ), never less than the checking client's
     * own. A node no client recorded (a first deployment, fresh test nodes) votes at once, and so does a node
     * that reports {@code appendonly yes} with {@code appendfsync always} and proves it came back with its data
     * (a marker that clients wrote on it before the restart, naming the process that ran there just before, is still
     * there). A node votes only once this client's record of it is on {@code floor(N/2)} other nodes, and a check reads
     * {@code N - floor(N/2)} other nodes that did not themselves restart while in use, so that it always reads a node
     * holding every record a holder's client wrote; with fewer in reach, a node's new process does not vote until enough
     * come back (a process this client already checked keeps its verdict). The default.
     */
    AUTO,

    /**
     * Quarantine every node up for less than {@code maxTtl} (or the longest {@code maxTtl} recorded for it),
     * first start included: the only safe choice when all nodes may restart empty at once (then no record
     * survives to tell a restart from a first start; give every client the fleet's longest {@code maxTtl}).
     */
    ALWAYS,

    /**
     * Never quarantine: a node votes as soon as it answers. Only for nodes that never lose acknowledged
     * writes, or where a rare double grant is acceptable.
     */
    NEVER

}
