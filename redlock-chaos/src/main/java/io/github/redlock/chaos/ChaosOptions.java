package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.fencing.JdbcFence;

/**
 * How a chaos run is made.
 * @param seed the seed of the fault schedule and of every client thread (printed, so that a run can be replayed)
 * @param clients how many client processes
 * @param threads threads per client process
 * @param shortClients how many client processes run their Redlocks with the short {@code maxTtl}
 * ({@link #shortMaxTtlMillis()}), beside the others' long one: a fleet sharing the nodes and the key prefix
 * @param faultSeconds how long faults are injected; the run then goes on without faults for its liveness check
 * @param faults the kinds of fault drawn from
 * @param kinds the kinds of lock the clients take (all but for a control run that needs one)
 * @param longHolds the share of holds that last half to nine tenths of the ttl, rather than a few ms
 * @param quarantine the clients' restart quarantine ({@code NEVER} for the control run)
 * @param fencing whether the fenced locks' writes carry fencing tokens ({@code false} for the control run)
 * @param directory where the histories, the report and the timeline go
 * @param maxTtlMillis the longest ttl drawn and the {@code maxTtl} of every client process but the short ones, whose
 * {@code maxTtl} is a quarter of it ({@link #MAX_TTL_MILLIS} but for a run whose hazard needs locks held longer)
 * @param sentinelConfirmation whether a Sentinel node of the clients votes only while a majority of its sentinels
 * confirms its master, and a cluster node only while a majority of its other masters confirms its view ({@code false}
 * for the control of {@link FaultKind#DEPOSED_MASTER} and {@link FaultKind#CLUSTER_PARTITION}: the client processes then
 * run with the core's internal switches {@value #UNCONFIRMED_SENTINELS}{@code =true} and
 * {@value #UNCONFIRMED_CLUSTERS}{@code =true})
 * @param leader whether every client process also runs a candidate of a leader election ({@link LeaderCandidate}) beside its
 * worker threads: one holds the leader lock with a lease extended automatically for the whole run, the others keep
 * asking for it
 * @param leaseRepairs whether the clients' Redlocks repair long leases on nodes restarted empty ({@code false} for the
 * control of {@link FaultKind#ROLLING_RESTART_ALL}: the client processes then run with the core's internal switch
 * {@value #NO_LEASE_REPAIRS}{@code =true})
 * @param storageFence whether the storage refuses a write whose fencing token is below the lock's fence
 * ({@link JdbcFence#advance} in the write's transaction on PostgreSQL); {@code false} for its control, in which fenced
 * holders still draw and record their tokens but the storage accepts their writes unchecked
 * @param formerRecordReads whether the clients read and confirm the restart records as before the quorum-intersection
 * rule ({@code true} only for the control of the partition faults, {@link FaultKind#PARTITIONED_RESTART}: the client
 * processes then run with the core's internal switch {@value #FORMER_RECORD_READS}{@code =true})
 */
record ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults,
        Set<History.Kind> kinds, double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory, long maxTtlMillis,
        boolean sentinelConfirmation, boolean leader, boolean leaseRepairs, boolean storageFence, boolean formerRecordReads) {

    /** Keys per kind of lock: few, so that every key is contended. */
    static final int KEYS = 8;

    /** The share of long holds by default: enough for faults to land while a lock is held, few enough for many operations. */
    static final double LONG_HOLDS = 0.05;

    static final long MIN_TTL_MILLIS = 100;

    /** The longest ttl drawn, and the {@code maxTtl} of every client process but the short ones, by default. */
    static final long MAX_TTL_MILLIS = 2_000;

    /**
     * The {@code maxTtl} of the short client processes by default, which draw their ttls up to it: a quarter of the others', so
     * that their own quarantine (this, drift and a second) ends while a long client's lease through a restarted node
     * may still be valid.
     */
    static final long SHORT_MAX_TTL_MILLIS = MAX_TTL_MILLIS / 4;

    static final long WAIT_MILLIS = 2_000;

    /**
     * The core's internal JVM system property that turns the sentinels' confirmation off, for controls only
     * ({@code SentinelWatch.UNCONFIRMED_PROPERTY} in redlock-core).
     */
    static final String UNCONFIRMED_SENTINELS = "redlock.internal.unconfirmed-sentinels";

    /** The core's internal switch that turns a cluster node's confirmation by its other masters off (ClusterConfirmation). */
    static final String UNCONFIRMED_CLUSTERS = "redlock.internal.unconfirmed-clusters";

    /**
     * The core's internal JVM system property that turns lease repairs off, for controls only
     * ({@code FollowUps.NO_REPAIRS_PROPERTY} in redlock-core).
     */
    static final String NO_LEASE_REPAIRS = "redlock.internal.no-lease-repairs";

    /**
     * The core's internal JVM system property that brings back the restart records' reads from before the
     * quorum-intersection rule, for controls only ({@code RestartGuard.FORMER_READS_PROPERTY} in redlock-core).
     */
    static final String FORMER_RECORD_READS = "redlock.internal.former-record-reads";

    ChaosOptions {
        if (maxTtlMillis < 4 * MIN_TTL_MILLIS) {
            throw new IllegalArgumentException("a chaos run's max-ttl must be at least " + 4 * MIN_TTL_MILLIS
                    + " ms, so that the short clients' quarter of it is not below the shortest ttl; was " + maxTtlMillis);
        }
        if (clients < 2 || threads < 1 || faultSeconds < 1) {
            throw new IllegalArgumentException("a chaos run needs at least 2 clients, 1 thread each and 1 s of faults; was "
                    + clients + " clients, " + threads + " threads, " + faultSeconds + " s");
        }
        if (shortClients < 0 || shortClients >= clients) {
            throw new IllegalArgumentException("chaos.shortClients must leave at least one client with the long max-ttl: between 0 and "
                    + (clients - 1) + " for " + clients + " clients; was " + shortClients);
        }
        faults = faults.isEmpty() ? EnumSet.noneOf(FaultKind.class) : EnumSet.copyOf(faults);
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("a chaos run needs at least one kind of lock, e.g. " + EnumSet.allOf(History.Kind.class));
        }
        kinds = EnumSet.copyOf(kinds);
        if (faults.contains(FaultKind.DEPOSED_MASTER) && faults.stream().anyMatch(FaultKind::partitions)) {
            throw new IllegalArgumentException("chaos.faults: DEPOSED_MASTER and the partition faults (PARTITION, PARTITIONED_RESTART) cannot "
                    + "share a run: each gives client processes paths of their own to the nodes; run them apart");
        }
    }

    /** Options with the restart records read by the quorum-intersection rule, as every run but the partition control has them. */
    ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults, Set<History.Kind> kinds,
            double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory, long maxTtlMillis,
            boolean sentinelConfirmation, boolean leader, boolean leaseRepairs, boolean storageFence) {
        this(seed, clients, threads, shortClients, faultSeconds, faults, kinds, longHolds, quarantine, fencing, directory, maxTtlMillis,
                sentinelConfirmation, leader, leaseRepairs, storageFence, false);
    }

    /** Options with the storage's fence on, as every run but its control has it. */
    ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults, Set<History.Kind> kinds,
            double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory, long maxTtlMillis,
            boolean sentinelConfirmation, boolean leader, boolean leaseRepairs) {
        this(seed, clients, threads, shortClients, faultSeconds, faults, kinds, longHolds, quarantine, fencing, directory, maxTtlMillis,
                sentinelConfirmation, leader, leaseRepairs, true);
    }

    /** Options without a leader election, with lease repairs on, as the clients run them unless told otherwise. */
    ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults, Set<History.Kind> kinds,
            double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory, long maxTtlMillis,
            boolean sentinelConfirmation) {
        this(seed, clients, threads, shortClients, faultSeconds, faults, kinds, longHolds, quarantine, fencing, directory, maxTtlMillis,
                sentinelConfirmation, false, true);
    }

    /** Options with the sentinels' confirmation on, as the clients run it unless told otherwise. */
    ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults, Set<History.Kind> kinds,
            double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory, long maxTtlMillis) {
        this(seed, clients, threads, shortClients, faultSeconds, faults, kinds, longHolds, quarantine, fencing, directory, maxTtlMillis,
                true);
    }

    /** Options with the default max-ttl, {@link #MAX_TTL_MILLIS}. */
    ChaosOptions(long seed, int clients, int threads, int shortClients, long faultSeconds, Set<FaultKind> faults, Set<History.Kind> kinds,
            double longHolds, RestartQuarantine quarantine, boolean fencing, Path directory) {
        this(seed, clients, threads, shortClients, faultSeconds, faults, kinds, longHolds, quarantine, fencing, directory, MAX_TTL_MILLIS);
    }

    /**
     * Options from system properties: {@code chaos.seed} (random when blank), {@code chaos.clients},
     * {@code chaos.threads}, {@code chaos.shortClients} (1), {@code chaos.minutes} or {@code chaos.seconds},
     * {@code chaos.faults} (comma-separated {@link FaultKind} names; when blank, all but the clock jump and the
     * failovers, see {@link FaultKind#safe()}), {@code chaos.kinds} (comma-separated {@link History.Kind} names; when blank,
     * all),
     * {@code chaos.longHolds}, {@code chaos.quarantine}, {@code chaos.fencing}, {@code chaos.dir},
     * {@code chaos.sentinelConfirmation} ({@code true}; {@code false} for the control of {@link FaultKind#DEPOSED_MASTER}),
     * {@code chaos.leader} (when blank, whether {@link FaultKind#ROLLING_RESTART_ALL} is among the faults, which proves
     * something only with it), {@code chaos.leaseRepairs} ({@code true}; {@code false} for the control of
     * {@link FaultKind#ROLLING_RESTART_ALL}), {@code chaos.storageFence} ({@code true}; {@code false} for the control of the
     * storage's fence), {@code chaos.formerRecordReads} ({@code false}; {@code true} for the control of the partition faults).
     * @param defaultSeconds the fault phase's length when neither minutes nor seconds are set
     */
    static ChaosOptions fromSystemProperties(long defaultSeconds) {
        String seed = System.getProperty("chaos.seed", "").trim();
        long minutes = Long.parseLong(blankTo(System.getProperty("chaos.minutes"), "0"));
        long seconds = (minutes > 0) ? minutes * 60
                : Long.parseLong(blankTo(System.getProperty("chaos.seconds"), Long.toString(defaultSeconds)));
        String faults = System.getProperty("chaos.faults", "").trim();
        String kinds = System.getProperty("chaos.kinds", "").trim();
        Set<FaultKind> faultKinds = faults.isEmpty() ? FaultKind.safe() : parse(FaultKind.class, faults, "chaos.faults");
        boolean fencing = Boolean.parseBoolean(blankTo(System.getProperty("chaos.fencing"), "true"));
        return new ChaosOptions(seed.isEmpty() ? ThreadLocalRandom.current().nextLong(1, 1_000_000) : Long.parseLong(seed),
                Integer.parseInt(blankTo(System.getProperty("chaos.clients"), "4")),
                Integer.parseInt(blankTo(System.getProperty("chaos.threads"), "6")),
                Integer.parseInt(blankTo(System.getProperty("chaos.shortClients"), "1")), seconds, faultKinds,
                kinds.isEmpty() ? EnumSet.allOf(History.Kind.class) : parse(History.Kind.class, kinds, "chaos.kinds"),
                Double.parseDouble(blankTo(System.getProperty("chaos.longHolds"), Double.toString(LONG_HOLDS))),
                RestartQuarantine.valueOf(blankTo(System.getProperty("chaos.quarantine"), "AUTO").toUpperCase(Locale.ROOT)),
                fencing, Path.of(blankTo(System.getProperty("chaos.dir"), "target/chaos")), MAX_TTL_MILLIS,
                Boolean.parseBoolean(blankTo(System.getProperty("chaos.sentinelConfirmation"), "true")),
                Boolean.parseBoolean(blankTo(System.getProperty("chaos.leader"),
                        Boolean.toString(faultKinds.contains(FaultKind.ROLLING_RESTART_ALL)))),
                Boolean.parseBoolean(blankTo(System.getProperty("chaos.leaseRepairs"), "true")),
                Boolean.parseBoolean(blankTo(System.getProperty("chaos.storageFence"), "true")),
                Boolean.parseBoolean(blankTo(System.getProperty("chaos.formerRecordReads"), "false")));
    }

    private static <E extends Enum<E>> Set<E> parse(Class<E> type, String names, String property) {
        List<E> values = Arrays.stream(names.split(",")).map(String::trim).map((name) -> {
            try {
                return Enum.valueOf(type, name.toUpperCase(Locale.ROOT));
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(property + " names an unknown value '" + name + "'; use some of "
                        + Arrays.toString(type.getEnumConstants()), ex);
            }
        }).toList();
        return EnumSet.copyOf(values);
    }

    private static String blankTo(String value, String fallback) {
        return (value == null || value.isBlank()) ? fallback : value.trim();
    }

    /** The same options with another directory. */
    ChaosOptions in(Path other) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, other, this.maxTtlMillis, this.sentinelConfirmation, this.leader,
                this.leaseRepairs, this.storageFence, this.formerRecordReads);
    }

    /** The same options with another max-ttl (the short clients get a quarter of it). */
    ChaosOptions withMaxTtl(long millis) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, millis, this.sentinelConfirmation, this.leader,
                this.leaseRepairs, this.storageFence, this.formerRecordReads);
    }

    /**
     * The same options with the sentinels' confirmation on or off ({@code false}: the control of
     * {@link FaultKind#DEPOSED_MASTER}).
     */
    ChaosOptions withSentinelConfirmation(boolean confirmation) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, this.maxTtlMillis, confirmation, this.leader,
                this.leaseRepairs, this.storageFence, this.formerRecordReads);
    }

    /** The same options with or without the leader election ({@link LeaderCandidate}). */
    ChaosOptions withLeader(boolean election) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, this.maxTtlMillis, this.sentinelConfirmation, election,
                this.leaseRepairs, this.storageFence, this.formerRecordReads);
    }

    /**
     * The same options with lease repairs on or off ({@code false}: the control of {@link FaultKind#ROLLING_RESTART_ALL}).
     */
    ChaosOptions withLeaseRepairs(boolean repairs) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, this.maxTtlMillis, this.sentinelConfirmation, this.leader,
                repairs, this.storageFence, this.formerRecordReads);
    }

    /**
     * The same options with the storage's fence on or off ({@code false}: its control, in which the storage accepts a
     * stale holder's write although it carries its token).
     */
    ChaosOptions withStorageFence(boolean fence) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, this.maxTtlMillis, this.sentinelConfirmation, this.leader,
                this.leaseRepairs, fence, this.formerRecordReads);
    }

    /**
     * The same options with the restart records read as before the quorum-intersection rule or by it ({@code true}: the
     * control of the partition faults).
     */
    ChaosOptions withFormerRecordReads(boolean former) {
        return new ChaosOptions(this.seed, this.clients, this.threads, this.shortClients, this.faultSeconds, this.faults, this.kinds,
                this.longHolds, this.quarantine, this.fencing, this.directory, this.maxTtlMillis, this.sentinelConfirmation, this.leader,
                this.leaseRepairs, this.storageFence, former);
    }

    /**
     * The core's internal switches the client processes run with, as JVM options: none unless a protection is turned off
     * for a control ({@link #sentinelConfirmation()}, {@link #leaseRepairs()}).
     */
    List<String> clientSwitches() {
        List<String> switches = new ArrayList<>();
        if (!this.sentinelConfirmation) {
            switches.add("-D" + UNCONFIRMED_SENTINELS + "=true");
            switches.add("-D" + UNCONFIRMED_CLUSTERS + "=true");
        }
        if (!this.leaseRepairs) {
            switches.add("-D" + NO_LEASE_REPAIRS + "=true");
        }
        if (this.formerRecordReads) {
            switches.add("-D" + FORMER_RECORD_READS + "=true");
        }
        return List.copyOf(switches);
    }

    /**
     * The Redis keys of the locks the run takes, with their Redlock's key prefix ({@code redlock:x:0}, …): a
     * {@link FaultKind#CLUSTER_FAILOVER} fails over the shard of one of them.
     */
    List<String> lockedKeys() {
        List<String> keys = new ArrayList<>();
        for (History.Kind kind : this.kinds) {
            for (int i = 0; i < KEYS; i++) {
                String key = kind.keyPrefix() + kind.lockKey(i);
                if (!keys.contains(key)) {
                    keys.add(key);
                }
            }
        }
        return List.copyOf(keys);
    }

    /** The {@code maxTtl} of the short client processes: a quarter of {@link #maxTtlMillis()}. */
    long shortMaxTtlMillis() {
        return this.maxTtlMillis / 4;
    }

    /**
     * How long after the last fault a run goes on, for the liveness check: the quarantine of the longest {@code maxTtl} of
     * the fleet (a short client's waits for it too), the longest ttl, the wait, and slack.
     */
    long tailMillis() {
        long max = this.maxTtlMillis;
        return (max + 1_000 + max / 100 + 2) + max + WAIT_MILLIS + 3_000 + 1_000;
    }

    /**
     * Each client process's {@code maxTtl}, by index: {@link #shortClients()} of them, drawn from the seed (the same
     * seed gives the same processes), get {@link #shortMaxTtlMillis()}, the others {@link #maxTtlMillis()}.
     */
    List<Long> clientMaxTtlMillis() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < this.clients; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(~this.seed)); // not the schedule's Random(seed): its draws stay as they were
        List<Long> maxTtls = new ArrayList<>(Collections.nCopies(this.clients, this.maxTtlMillis));
        order.subList(0, this.shortClients).forEach((client) -> maxTtls.set(client, shortMaxTtlMillis()));
        return List.copyOf(maxTtls);
    }

}
