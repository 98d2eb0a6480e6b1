package io.github.redlock.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.core.internal.LockName;
import io.github.redlock.core.internal.LockService;
import io.github.redlock.core.internal.RedlockConfig;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * A distributed lock over N independent Redis masters, as antirez's Redlock algorithm describes: a lock is held when a
 * majority of nodes set its key within the key's time to live, less the time the attempt took and a clock drift
 * allowance. It survives the loss of any minority of the nodes.
 *
 * <pre>{@code
 * try (Redlock redlock = Redlock.builder().nodes(uri1, uri2, uri3, uri4, uri5).build()) {
 *     Optional<RedlockLease> lease = redlock.tryAcquire("order:42", Duration.ofSeconds(10));
 *     lease.ifPresent((held) -> { try (held) { pay(order); } });
 * }
 * }</pre>
 *
 * Thread-safe; create one per application and share it. Futures returned by the asynchronous methods complete on an I/O
 * thread: never block in a non-async stage chained to them; cancelling one stops the attempts, and a lease acquired
 * meanwhile is released. A lock's name that is blank, a ttl below 1 ms or above the {@code maxTtl}, or a negative wait
 * time is refused with an {@link IllegalArgumentException} that names it.
 * <p>
 * The public face of the library, which only delegates ({@code Redlock.Builder} is a name of the API, hence nested):
 * the internal {@code RedlockConfig} holds the defaults and validates the settings, and the internal
 * {@code LockService} holds the parts, the hand-over of leases, the nodes' statuses and the close.
 */
public final class Redlock implements AutoCloseable {

    private final LockService service;

    private Redlock(LockService service) {
        this.service = service;
    }

    /**
     * Starts configuring a {@code Redlock}.
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Makes one attempt to acquire the lock, without waiting.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at most the {@code maxTtl}
     * @return the lease, or empty if the lock is held elsewhere or no quorum of nodes answered in time
     */
    public Optional<RedlockLease> tryAcquire(String key, Duration ttl) {
        return tryAcquire(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the lock, retrying after jittered delays until {@code waitTime} has passed.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease, or empty if it could not be acquired within the wait time (or the thread was interrupted,
     * whose interrupt flag is then set; a lease acquired at the very moment of the interrupt is returned all the same,
     * with the flag set, and must be released as usual)
     */
    public Optional<RedlockLease> tryAcquire(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.exclusive(key), ttl, waitTime));
    }

    /**
     * Acquires the lock, retrying after jittered delays until {@code waitTime} has passed.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time; its message names the quorum and
     * each node that did not agree, with its reason
     */
    public RedlockLease acquire(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the lock on all of {@code keys} at once, without waiting: see
     * {@link #tryAcquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at most the {@code maxTtl}
     * @return the lease of all the keys, or empty if any of them is held elsewhere or no quorum answered in time
     */
    public Optional<RedlockLease> tryAcquire(List<String> keys, Duration ttl) {
        return tryAcquire(keys, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the lock on all of {@code keys} at once, retrying until {@code waitTime} has passed. Each
     * node takes every key or none, in one script, so no node holds part of the set and two callers whose sets overlap
     * never wait for each other in a circle. Each key is the exclusive lock of that name. Quorum and validity are those
     * of one key; the lease extends, is lost and is released for all the keys together ({@link RedlockLease#keys()}). A
     * waiting caller wakes on the release of any of them.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease of all the keys, or empty as {@link #tryAcquire(String, Duration, Duration)} says
     */
    public Optional<RedlockLease> tryAcquire(List<String> keys, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.allOf(keys), ttl, waitTime));
    }

    /**
     * Acquires the lock on all of {@code keys} at once: see {@link #tryAcquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease of all the keys
     * @throws RedlockAcquisitionException if it was not acquired within the wait time (its key: the keys, comma-joined)
     */
    public RedlockLease acquire(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #tryAcquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease of all the keys, or of empty
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireAsync(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the read lock of {@code key}, without waiting. Any number of readers hold it
     * together; a writer holding it, or waiting for it, keeps new readers out. The read-write lock of a key is separate
     * from its exclusive lock, and serves waiting readers and writers in the order they arrived (see
     * {@link #tryAcquireWrite(String, Duration, Duration)}).
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry, at most the {@code maxTtl}
     * @return the reader's lease, or empty if a writer holds or waits for the lock, or no quorum answered
     */
    public Optional<RedlockLease> tryAcquireRead(String key, Duration ttl) {
        return tryAcquireRead(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the read lock of {@code key} until {@code waitTime} has passed; see
     * {@link #tryAcquireRead(String, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the reader's lease, or empty if it could not be acquired within the wait time
     */
    public Optional<RedlockLease> tryAcquireRead(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.read(key), ttl, waitTime));
    }

    /**
     * The asynchronous form of {@link #tryAcquireRead(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the reader's lease, or of empty
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireReadAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.read(key), ttl, waitTime);
    }

    /**
     * Acquires the read lock of {@code key}, retrying until {@code waitTime} has passed, or throws.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the reader's lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time
     */
    public RedlockLease acquireRead(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.read(key), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the write lock of {@code key}, which excludes its readers and other writers, without
     * waiting; see {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at most the {@code maxTtl}
     * @return the writer's lease, or empty if readers or a writer hold the lock, or no quorum answered
     */
    public Optional<RedlockLease> tryAcquireWrite(String key, Duration ttl) {
        return tryAcquireWrite(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the write lock of {@code key}, retrying after jittered delays until {@code waitTime} has
     * passed. A refused reader or writer is queued on the nodes, by arrival, until it gets the lock or stops trying:
     * readers arriving after a waiting writer wait for it, and a writer arriving after waiting readers waits for them,
     * so neither side can starve the other. The read-write lock lives in keys of its own ({@code <prefix><key>}, the
     * byte {@code 0xFF}, then a suffix: docs/core-api.md), so it does not exclude, and is not excluded by, any
     * exclusive lock.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the writer's lease, or empty if it could not be acquired within the wait time
     */
    public Optional<RedlockLease> tryAcquireWrite(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.write(key), ttl, waitTime));
    }

    /**
     * The asynchronous form of {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the writer's lease, or of empty
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireWriteAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.write(key), ttl, waitTime);
    }

    /**
     * Acquires the write lock of {@code key}, retrying until {@code waitTime} has passed, or throws; see
     * {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the writer's lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time
     */
    public RedlockLease acquireWrite(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.write(key), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #acquire(String, Duration, Duration)}, for callers that must not block a thread
     * (coroutines, reactive pipelines).
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease, failed with a {@link RedlockAcquisitionException} if not acquired in time
     */
    public CompletableFuture<RedlockLease> acquireAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #acquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease of all the keys, failed with a {@link RedlockAcquisitionException} if not acquired
     * in time
     */
    public CompletableFuture<RedlockLease> acquireAsync(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #acquireRead(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the reader's key
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the reader's lease, failed with a {@link RedlockAcquisitionException} if not acquired in time
     */
    public CompletableFuture<RedlockLease> acquireReadAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.read(key), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #acquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the writer's lease, failed with a {@link RedlockAcquisitionException} if not acquired in time
     */
    public CompletableFuture<RedlockLease> acquireWriteAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.write(key), ttl, waitTime);
    }

    /**
     * The asynchronous form of {@link #tryAcquire(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease, or of empty if it could not be acquired within the wait time
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * Frees the exclusive lock {@code key} on every node, whoever holds it: an operator's way out when the holder is
     * gone and the ttl is long. Each node deletes {@code keyPrefix + key} only where it is an exclusive lock (a string
     * with a time to live; not the read-write lock of that name, nothing outside the prefix; a key of a lock on several
     * keys alone) and publishes a release that wakes the waiters. A holder still running learns of it at its next
     * extension, which fails; until then its {@link RedlockLease#isValid()} may be true, so revoke only a lock whose
     * holder is gone or may overlap the next. This instance's own leases of the lock are lost first. Sent once to every
     * node at once, never again later (it could free a lease granted since); a node that misses the node timeout may
     * still apply it, uncounted. Blocks for about the node timeout at most: not on an I/O thread of the lock.
     * @param key the lock's name as the application gives it, without the key prefix; not blank
     * @return how many nodes held the lock and deleted it within the node timeout; interrupted, those so far (flag set)
     * @throws IllegalStateException if this lock is closed
     */
    public int revoke(String key) {
        return this.service.revoke(key, null);
    }

    /**
     * Frees the exclusive lock {@code key}, as {@link #revoke(String)} does, only on the nodes where the instance
     * {@code expectedHolder} holds it: one where another instance (it took the lock since the operator looked) or
     * another Redlock client holds it keeps it. This instance's own leases are lost first only when it is
     * {@code expectedHolder}.
     * @param key the lock's name as the application gives it, without the key prefix; not blank
     * @param expectedHolder the instance id of the holder to free it from ({@link LockInspection#holder()}); not blank
     * @return how many nodes held the lock for {@code expectedHolder} and deleted it within the node timeout
     * @throws IllegalStateException if this lock is closed
     */
    public int revoke(String key, String expectedHolder) {
        return this.service.revokeFrom(key, expectedHolder);
    }

    /**
     * Returns the leases this instance acquired and has not released yet, including those whose validity ran out
     * meanwhile (see {@link RedlockLease#isValid()}).
     * @return a snapshot, in no particular order
     */
    public List<RedlockLease> heldLeases() {
        return this.service.heldLeases();
    }

    /**
     * Returns the nodes, as {@code host:port}, each with whether its connection is up now.
     * @return the nodes in configuration order
     */
    public Map<String, Boolean> nodeConnections() {
        return this.service.nodeConnections();
    }

    /**
     * Returns what each node is to the lock now: {@code UP} (voting), {@code DOWN} (not connected, not checked yet, or
     * a Sentinel group or cluster shard whose master a majority did not confirm lately) or {@code QUARANTINED}
     * (restarted recently, see {@link RestartQuarantine}; or not an independent master, which waits
     * {@link ChronoUnit#FOREVER}), with how much longer a quarantine lasts and why.
     * @return the nodes in configuration order, by {@code host:port}
     */
    public Map<String, NodeStatus> nodeStatuses() {
        return this.service.nodeStatuses();
    }

    /**
     * Reads what every node holds of the lock {@code key} (an exclusive lock, also as a key of a lock on several keys;
     * a write lock; or readers), for how much longer and for which {@link Builder#instanceId(String) instance}, and
     * whether a quorum of the voting nodes holds it. Only reads, and not this lock's own leases. A node that does not
     * answer within about the node timeout shows as {@code DOWN}; blocks that long at most: not on an I/O thread of the
     * lock.
     * @param key the lock's name as the application writes it, without the key prefix; not blank
     * @return what the nodes hold, read now
     */
    public LockInspection inspect(String key) {
        return this.service.inspect(key);
    }

    /**
     * The instance id an application gets when it sets none: {@code <application name>@host:pid}, or {@code host:pid}
     * without a name, the host's name read without a name lookup. Characters outside printable ASCII (and spaces)
     * become {@code _}, and a longer id keeps its last 64 characters (the host and pid).
     * @param applicationName the application's name (e.g. {@code spring.application.name}), or null
     * @return an id {@link Builder#instanceId(String)} accepts
     */
    public static String defaultInstanceId(@Nullable String applicationName) {
        return RedlockConfig.defaultInstanceId(applicationName);
    }

    /**
     * Returns how many nodes must agree for a lock to be held: {@code N/2 + 1}.
     * @return the quorum
     */
    public int quorum() {
        return this.service.quorum();
    }

    /**
     * Returns the longest time to live a lease may ask for ({@link Builder#maxTtl(Duration)}): no key this lock sets
     * lives longer without being extended.
     * @return the maximum ttl
     */
    public Duration maxTtl() {
        return this.service.maxTtl();
    }

    /**
     * Closes the lock. Acquisitions still waiting end at once, with an {@link IllegalStateException}. Then it waits, at
     * most three node timeouts plus 5 s, for the attempts in flight and every release and clean-up to be answered (a
     * lease an attempt in flight still obtains is released), stops the automatic extensions, and closes the connections
     * and, unless the builder was given them, the Lettuce resources. Leases still held are lost ({@code lost()}
     * completes) but not released: the work they protect may still run, and their keys expire with their ttl. A second
     * call waits for the first. Called from a callback of the lock's futures or of {@code lost()}, it never waits for
     * the work that runs that callback: it closes in the background instead. Never throws.
     */
    @Override
    public void close() {
        this.service.close();
    }

    @Override
    public String toString() {
        return this.service.toString();
    }

    /**
     * Configures a {@link Redlock}. Only {@link #nodes(List)} is required.
     */
    public static final class Builder {

        private final RedlockConfig.Draft draft = new RedlockConfig.Draft();

        private Builder() {
        }

        /**
         * Sets the independent Redis masters, as URIs Lettuce understands ({@code redis://host:port},
         * {@code rediss://…} for TLS, with password and database as needed). Three or five are typical.
         * @param nodes the node URIs
         * @return this builder
         */
        public Builder nodes(List<String> nodes) {
            this.draft.nodes = (nodes != null) ? new ArrayList<>(nodes) : null; // may hold nulls: build() names them
            return this;
        }

        /**
         * Sets the independent Redis masters; see {@link #nodes(List)}.
         * @param nodes the node URIs
         * @return this builder
         */
        public Builder nodes(String... nodes) {
            this.draft.nodes = (nodes != null) ? new ArrayList<>(Arrays.asList(nodes)) : null; // as nodes(List) does
            return this;
        }

        /**
         * Sets the time after which a node that has not answered a command counts as a "no". Keep it small compared to
         * the ttl. Default 50 ms.
         * @param nodeTimeout the per-node command timeout
         * @return this builder
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.draft.nodeTimeout = nodeTimeout;
            return this;
        }

        /**
         * Sets the fraction of the ttl allowed for clock drift between the nodes; the validity of a lease is shortened
         * by {@code ttl * factor + 2 ms}. Default 0.01.
         * @param clockDriftFactor from 0 (inclusive) to 1 (exclusive)
         * @return this builder
         */
        public Builder clockDriftFactor(double clockDriftFactor) {
            this.draft.clockDriftFactor = clockDriftFactor;
            return this;
        }

        /**
         * Sets the base delay between attempts while waiting for a lock; each delay is drawn at random between half and
         * one and a half times it, so that competing clients desynchronise. Default 100 ms.
         * @param retryDelay the base delay, positive
         * @return this builder
         */
        public Builder retryDelay(Duration retryDelay) {
            this.draft.retryDelay = retryDelay;
            return this;
        }

        /**
         * Names this instance in every lock it takes (each lease's token is {@code <instance-id>:<random>}), so that
         * {@link Redlock#inspect(String)}, an operator and other instances' failures show who holds a lock. Default
         * {@code host:pid}; the Spring Boot starter's is {@code ${spring.application.name}@host:pid}.
         * @param instanceId 1 to 64 printable ASCII characters without spaces; not a secret (any client of the nodes
         * reads it)
         * @return this builder
         */
        public Builder instanceId(String instanceId) {
            this.draft.instanceId = instanceId;
            return this;
        }

        /**
         * Sets the prefix of every Redis key this lock writes. Default {@code "redlock:"}.
         * @param keyPrefix the prefix, possibly empty
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.draft.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Accepts a lock only if the attempt took at most this fraction of the ttl (e.g. {@code 1.0 / 3} for the
         * "elapsed &lt;= ttl/3" variant of the algorithm); an attempt over budget counts as failed and is cleaned up.
         * Default 1.0.
         * @param fractionOfTtl greater than 0, at most 1
         * @return this builder
         */
        public Builder acquisitionBudget(double fractionOfTtl) {
            this.draft.acquisitionBudget = fractionOfTtl;
            return this;
        }

        /**
         * Sets the longest ttl any acquisition or extension may ask for (a larger one is refused, naming {@code ttl});
         * longer work extends its lease ({@link RedlockLease#autoExtend(Duration)}). It bounds how long a node that
         * lost its keys in a restart waits before it votes again. Default 60 s.
         * @param maxTtl the longest ttl, at least 1 ms
         * @return this builder
         */
        public Builder maxTtl(Duration maxTtl) {
            this.draft.maxTtl = maxTtl;
            return this;
        }

        /**
         * Sets when a node that restarted may vote again. Default {@link RestartQuarantine#AUTO}, which says how.
         * @param restartQuarantine the rule
         * @return this builder
         */
        public Builder restartQuarantine(RestartQuarantine restartQuarantine) {
            this.draft.restartQuarantine = restartQuarantine;
            return this;
        }

        /**
         * Gives each exclusive and write lease a fencing token ({@link RedlockLease#fencingToken()}, which says what it
         * guarantees), for storage that accepts a write only with a token above the last one it saw. It costs one more
         * parallel round trip per acquisition, and one counter key per node. Default off.
         * @param fencing whether leases carry fencing tokens
         * @return this builder
         */
        public Builder fencing(boolean fencing) {
            this.draft.fencing = fencing;
            return this;
        }

        /**
         * Shares Lettuce resources (event loops, timer) with the application; the {@code Redlock} then does not shut
         * them down. Their timer's tick bounds how precisely node timeouts fire (Lettuce's default: 100 ms; the
         * resources a {@code Redlock} creates itself tick every 10 ms).
         * @param clientResources the resources to use
         * @return this builder
         */
        public Builder clientResources(ClientResources clientResources) {
            this.draft.clientResources = clientResources;
            return this;
        }

        /**
         * Reports what the lock does (node commands, releases, extensions) to an observer, e.g. for metrics.
         * @param observer the observer, or {@code null} for none
         * @return this builder
         */
        public Builder observer(@Nullable RedlockObserver observer) {
            this.draft.observer = observer;
            return this;
        }

        /**
         * Observes every acquisition (waiting included), release and extension as a Micrometer {@code Observation}
         * named {@code redlock.lock}: with Micrometer Tracing, a span with its outcome and each node's answer. Needs
         * the optional {@code io.micrometer:micrometer-observation}; names:
         * {@link io.github.redlock.core.observation.DefaultRedlockObservationConvention}.
         * @param observationRegistry the registry, or {@code null} for none
         * @return this builder
         */
        public Builder observationRegistry(@Nullable ObservationRegistry observationRegistry) {
            this.draft.observationRegistry = observationRegistry;
            return this;
        }

        /**
         * Replaces the convention of the observations (their names and key values); without one, a global convention of
         * the registry, else {@link io.github.redlock.core.observation.DefaultRedlockObservationConvention}.
         * @param observationConvention the convention, or {@code null} for the default
         * @return this builder
         */
        public Builder observationConvention(@Nullable RedlockObservationConvention observationConvention) {
            this.draft.observationConvention = observationConvention;
            return this;
        }

        /**
         * Opens node connections through the given connector instead of a Lettuce client of the {@code Redlock}'s own;
         * the connector's client must have {@link NodeConnector#clientOptions(Duration) the options Redlock relies on}.
         * For integrations such as the Spring Boot starter.
         * @param connector opens the connection to a node
         * @return this builder
         */
        public Builder connector(NodeConnector connector) {
            this.draft.connector = connector;
            return this;
        }

        /**
         * Sets the TLS options of the connections the {@code Redlock} opens itself to {@code rediss://} nodes (e.g.
         * {@code SslOptions.builder().jdkSslProvider().trustManager(caPemFile).build()}); without them, the JVM's trust
         * store. Not used with a {@link #connector(NodeConnector) connector}. A node whose certificate they do not
         * trust fails {@link #build()}.
         * @param sslOptions the TLS options, or {@code null} for Lettuce's defaults
         * @return this builder
         */
        public Builder sslOptions(@Nullable SslOptions sslOptions) {
            this.draft.sslOptions = sslOptions;
            return this;
        }

        /**
         * Authenticates to every node with a provider's credentials, asked at every (re)connection (rotating passwords,
         * IAM tokens), in place of those in the URIs. A node that refuses them counts as "no" with status
         * {@code WRONGPASS}.
         * @param credentials the provider, or {@code null} for the URIs' own credentials
         * @return this builder
         */
        public Builder credentialsProvider(@Nullable RedisCredentialsProvider credentials) {
            this.draft.credentials = credentials;
            return this;
        }

        /**
         * Validates the configuration, connects to the nodes and returns the lock. Unreachable nodes count as "no"
         * until they can be reached, and are retried in the background; a node whose TLS certificate is not trusted
         * fails the build.
         * @return the lock, to be closed when no longer needed
         * @throws RedlockArgumentException if a setting is invalid (the message names it and says what to write;
         * {@link RedlockArgumentException#getArgument()} gives its name), or a node's certificate is not trusted
         * ({@code nodes})
         */
        public Redlock build() {
            return new Redlock(LockService.of(this.draft.toConfig()));
        }

    }

}
