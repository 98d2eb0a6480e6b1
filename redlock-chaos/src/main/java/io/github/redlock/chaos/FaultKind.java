package io.github.redlock.chaos;

/**
 * The faults a chaos run injects. "Within the model" means at most a minority of nodes is unreachable at any
 * moment; beyond it, the run must stay safe and only become unavailable.
 */
enum FaultKind {

    /** One node is killed (SIGKILL) and restarted empty a moment later. */
    NODE_RESTART,

    /** A majority of nodes is restarted empty one after another, each within the ttl of the last: the restart hazard. */
    ROLLING_RESTART,

    /**
     * Every node is restarted empty one after another, as a fleet redeployed without persistence: no node keeps
     * the keys or the fencing counter, nor the records that tell other clients a node restarted. Clients that
     * saw the nodes before keep them from voting until their quarantine ends, and fencing tokens start again
     * from the nodes' clocks.
     */
    EVERY_NODE_RESTART,

    /**
     * A majority of nodes is restarted empty one after another, as {@link #ROLLING_RESTART}, under a durable
     * configuration ({@code appendonly yes}, {@code appendfsync always}): nodes given new disks, or containers started
     * again without their volumes. Their configuration says they log every write, yet they lost the keys they held.
     * Each runs durable until its next restart; the other restart faults restart it without those options, as the
     * rest of the nodes run. (A majority, as one node restarted alone almost never held a lock's only majority here:
     * holders mostly hold all five nodes.)
     */
    DURABLE_EMPTY_RESTART,

    /**
     * One node crashes (SIGKILL) and recovers from its own files: a node that runs durable (since a
     * {@link #DURABLE_EMPTY_RESTART}) when there is one, which comes back with every write it acknowledged and may
     * vote at once; otherwise any node, which persisted nothing and comes back empty.
     */
    DURABLE_RESTART,

    /** One node is paused (SIGSTOP) for less than the shortest ttl. */
    NODE_PAUSE_SHORT,

    /** One node is paused (SIGSTOP) for longer than the longest ttl. */
    NODE_PAUSE_LONG,

    /** A client process is paused (SIGSTOP) for longer than the longest ttl, likely while it holds a lock. */
    CLIENT_PAUSE,

    /**
     * The clock of one node (running under libfaketime) jumps forward by more than the longest ttl. Beyond the
     * model (Redlock assumes clocks that run at about the same rate): a holder with a bare majority that
     * includes that node loses the lock to another client while its lease is valid. Not drawn unless asked for.
     */
    CLOCK_JUMP,

    /** One node restarted and another paused at once: still within the model. */
    MINORITY_COMBINED,

    /** A majority of nodes paused at once: beyond the model, unavailable but safe. */
    MAJORITY_DOWN,

    /**
     * The node that is a Sentinel group (a run that may draw this fault has one, beside standalone nodes) fails over
     * in the hazardous way: its replica is cut off from the master, the master acknowledges writes that never reach
     * it, then the master is killed and the sentinels promote the replica, which lacks those keys. Meanwhile two
     * standalone nodes are cut off from the clients, so that the locks taken then hold a bare majority with the
     * group among it; they come back before the master is killed, so that at most two nodes are out at once. Within
     * the model: a failover is a restart, and the promoted replica must wait out the quarantine. The killed server
     * then comes back empty as a replica of the new master. Not drawn unless asked for (see {@link #safe()}).
     */
    FAILOVER,

    /**
     * The node that is a Redis Cluster (three masters, a replica each; a run that may draw this fault has one, beside
     * standalone nodes) fails one shard over in the hazardous way, as {@link #FAILOVER} does to a Sentinel group: the
     * shard of a key the run locks, whose replica is cut off from its master while the master acknowledges writes, then
     * the master is killed and the replica promoted without them, with two standalone nodes cut off from the clients
     * meanwhile. The killed server comes back empty and rejoins as the promoted one's replica. Within the model: the
     * whole cluster node waits out the quarantine once a master of it is replaced. Not drawn unless asked for.
     * <p>
     * A kind of its own rather than a setting that makes {@link #FAILOVER}'s node a cluster: each kind names the node it
     * fails over, so that the report's fault counts say which was failed over, a run can draw both (each on its own node,
     * with three standalone nodes beside them), and the runs already reported with {@link #FAILOVER} keep their meaning.
     * Its runs take no fenced locks, which the core refuses on a cluster node (see {@link ChaosOptions}).
     */
    CLUSTER_FAILOVER,

    /**
     * The Sentinel group fails over while one client process, {@link ClientPaths#CLIENT}, misses it (issue 44): its
     * paths to two standalone nodes and to every sentinel go silent (TCP proxies of the run drop every byte, the sockets
     * stay open), then {@code SENTINEL FAILOVER} promotes the replica, while the former master is kept a master (it
     * refuses the sentinels' {@code REPLICAOF}, as a master cut off from them never hears it). The other clients follow
     * the failover, wait out the promoted replica's quarantine and the sentinels' confirmation bound, and lock through
     * it; the cut-off client still reaches the deposed master and the other two standalone nodes, a bare majority.
     * The paths come back a few seconds after the others count the promoted replica, and the former master becomes its
     * replica. Within the model: at most two nodes out for any client. Safe only because a Sentinel node votes while
     * a majority of its sentinels confirms its master; the control turns that off
     * ({@link ChaosOptions#sentinelConfirmation()}). Not drawn unless asked for.
     * <p>
     * A kind of its own rather than a mode of {@link #FAILOVER}: the two hazards differ (a promoted replica without
     * acknowledged writes, against a former master that still answers), each has its own protection (the restart
     * quarantine, the sentinels' confirmation) and control, a report's fault counts say which was drawn, a run may
     * draw both on one group, and the runs already reported with {@link #FAILOVER} keep their meaning.
     */
    DEPOSED_MASTER,

    /**
     * Every standalone node is restarted empty, one after another, each only once every client process counts the one
     * before again (its restart quarantine is over for all of them: {@link ClientVotes}) and a ttl more, in which a lease
     * extended automatically is extended at least twice: a fleet upgraded node by node without persistence, slowly
     * enough that a lock never loses a majority at once. The hazard is to long leases, a leader's (the run's leader
     * election, {@link LeaderCandidate}): a lease written once at its grant loses each node restarted under it for good,
     * and after the third restart of five no extension reaches a quorum, although every node is up. The core's lease
     * repair writes the token again on each restarted node once it votes; the control turns it off
     * ({@link ChaosOptions#leaseRepairs()}). Within the model: one node out at a time. Not drawn unless asked for (see
     * {@link #safe()}).
     */
    ROLLING_RESTART_ALL,

    /**
     * One client process loses its network links to some of the standalone nodes (one to all of them, drawn), which every
     * other client still reaches, for 0.2 s to two longest ttls and a second; in half of them one standalone node (drawn
     * among all) is restarted empty meanwhile. The nodes run in network namespaces of their own ({@link
     * io.github.redlock.test.NetworkHost}), each client reaching each node over a veth link of its own, and a cut link drops
     * every packet silently both ways: connections hang until their timeouts. Within the model for that client while it
     * keeps a majority; beyond it (unavailable to it, not unsafe) when it does not. Needs root and iproute2: a run
     * that cannot make namespaces skips the partition faults with a message. Not drawn unless asked for.
     */
    PARTITION,

    /**
     * The read-quorum hole of the restart quarantine (issue 38), with the nodes and the client drawn: a minority of the
     * nodes, {@code D}, is killed while the clients lock on the others, {@code M}; a client process loses its links to all
     * of {@code M} but one node {@code v}; {@code D} come back empty and {@code v} is restarted empty at once; then that
     * client starts a Redlock it never ran before (a newcomer: an instance deployed meanwhile), which reaches only
     * {@code v} and {@code D}, a bare majority, and locks with it for two longest ttls and a quarantine, after which the
     * links come back. The records of {@code v}'s former process are on {@code M}'s other nodes, which the newcomer cannot
     * read; {@code D} and {@code v} hold none. A check that decided on answers from any {@code floor(N/2)} nodes let
     * {@code v} vote at once for the newcomer while another client's lease on {@code M} was valid; the quorum-intersection
     * rule leaves it undecided (too few trusted readers), fail closed. The control reads as before
     * ({@link ChaosOptions#formerRecordReads()}). Only in a run whose every node is standalone (needs five or more for the
     * hole: three leave no minority to kill beside the cut). Needs namespaces, as {@link #PARTITION}; not drawn unless
     * asked for.
     */
    PARTITIONED_RESTART,

    /**
     * The cluster's counterpart of {@link #DEPOSED_MASTER} (issue 45): one client process and the master of a locked key's
     * shard are cut off together. The client loses every server of the cluster but that master, and two standalone
     * nodes; the master loses the cluster bus both ways, so it never hears of the failover and goes on answering as the
     * master of its slots (the cluster's node timeout is Redis 7's 15 s meanwhile). Its replica takes over, the other
     * masters follow, and the other clients count the promoted replica once its quarantine is over; the cut-off client
     * still reaches the deposed master and two standalone nodes, a bare majority. The cuts end a quarantine, the
     * confirmation bound and 6 to 8 s after the promotion, and the former master becomes the replica. Safe only because
     * a cluster node votes while a majority of the other masters confirms its view; the control turns that off
     * ({@link ChaosOptions#sentinelConfirmation()}, which covers both kinds of group). The cuts are
     * {@link io.github.redlock.test.ProcessCuts} (a {@code net_cls} group per process and nftables): a namespace per
     * server cannot separate the clients of a cluster, whose servers announce one address to all. Needs root and
     * nftables; not drawn unless asked for.
     */
    CLUSTER_PARTITION;

    /** Whether the fault cuts network links between client processes and nodes ({@link io.github.redlock.test.NetworkHost}). */
    boolean partitions() {
        return this == PARTITION || this == PARTITIONED_RESTART;
    }

    /**
     * The faults a run draws from by default: all under which the lock must stay safe, so not {@link #CLOCK_JUMP}, but
     * neither {@link #FAILOVER}, {@link #DEPOSED_MASTER} nor {@link #CLUSTER_FAILOVER}: each puts a node of its own (a
     * Sentinel group, a Redis Cluster) in the place of a standalone node, which the other faults leave alone, so that
     * {@link #EVERY_NODE_RESTART} would no longer restart every node. Nor {@link #ROLLING_RESTART_ALL}: one takes some
     * 30 s (five quarantines and the waits after them), it proves something only with the leader election, and a kind
     * more in the default deck would give every seed written down so far another schedule. Nor the partition faults
     * ({@link #PARTITION}, {@link #PARTITIONED_RESTART}, {@link #CLUSTER_PARTITION}), which need root, for the same reason.
     */
    static java.util.Set<FaultKind> safe() {
        return java.util.EnumSet.complementOf(java.util.EnumSet.of(CLOCK_JUMP, FAILOVER, CLUSTER_FAILOVER, DEPOSED_MASTER,
                ROLLING_RESTART_ALL, PARTITION, PARTITIONED_RESTART, CLUSTER_PARTITION));
    }

}
