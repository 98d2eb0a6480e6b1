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
 * A distributed lock over N independent Redis masters, as antirez's Redlock algorithm describes: a lock is
 * held when a majority of nodes set its key within the key's time to live, less the time the attempt took
 * and a clock drift allowance. It survives the loss of any minority of the nodes.
 *
 * <pre>{@code
 * try (Redlock redlock = Redlock.builder().nodes(uri1, uri2, uri3, uri4, uri5).build()) {
 *     Optional<RedlockLease> lease = redlock.tryAcquire("order:42", Duration.ofSeconds(10));
 *     lease.ifPresent((held) -> { try (held) { pay(order); } });
 * }
 * }</pre>
 *
 * Thread-safe; create one per application and share it. Futures returned by the asynchronous method
 * complete on an I/O thread: never block in a non-async stage chained to them.
 * <p>
 * This class is the public face of the library: the one-key, several-keys, read and write forms of each operation
 * (blocking, throwing, asynchronous) and the {@link Builder}, nested because {@code Redlock.Builder} is a name of the
 * public API. It only delegates: the builder collects values, whose validation and defaults are the internal
 * {@code RedlockConfig}'s, and each method hands its call to the internal {@code LockService}, which holds the parts and
 * the hand-over of leases, the nodes' statuses and the close; the algorithm itself is in the internal packages
 * ({@code io.github.redlock.core.internal}).
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
     * @param ttl how long the nodes keep the key, at least 1 ms and at most the {@code maxTtl}
     * @return the lease, or empty if the lock is held elsewhere or no quorum of nodes answered in time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquire(String key, Duration ttl) {
        return tryAcquire(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the lock, retrying after jittered delays until {@code waitTime} has passed.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease, or empty if it could not be acquired within the wait time (or the thread was
     * interrupted, whose interrupt flag is then set; a lease acquired at the very moment of the interrupt is
     * returned all the same, with the flag set, and must be released as usual)
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquire(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.exclusive(key), ttl, waitTime));
    }

    /**
     * Acquires the lock, retrying after jittered delays until {@code waitTime} has passed.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time; its message names the
     * quorum and each node that did not agree, with its reason
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public RedlockLease acquire(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the lock on all of {@code keys} at once, without waiting: see
     * {@link #tryAcquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at least 1 ms and at most the {@code maxTtl}
     * @return the lease of all the keys, or empty if any of them is held elsewhere or no quorum answered in time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquire(List<String> keys, Duration ttl) {
        return tryAcquire(keys, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the lock on all of {@code keys} at once, retrying until {@code waitTime} has passed.
     * Each node takes every key or none, in one script, so a node never holds part of the set, and two callers
     * whose sets overlap never wait for each other in a circle. Each key is the exclusive lock of that name, so
     * the lease excludes, and is excluded by, {@link #tryAcquire(String, Duration)} on any of them. Quorum and
     * validity are those of a single key; the one lease extends, is lost and is released for all the keys
     * together ({@link RedlockLease#keys()} lists them; {@link RedlockLease#key()} joins them with commas). A
     * waiting caller wakes on the release of any of the keys. One key is the plain lock of that key.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease of all the keys, or empty if it could not be acquired within the wait time (or the
     * thread was interrupted: see {@link #tryAcquire(String, Duration, Duration)})
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquire(List<String> keys, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.allOf(keys), ttl, waitTime));
    }

    /**
     * Acquires the lock on all of {@code keys} at once, retrying until {@code waitTime} has passed: see
     * {@link #tryAcquire(List, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the lease of all the keys
     * @throws RedlockAcquisitionException if it was not acquired within the wait time; its key is the keys joined
     * with commas
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public RedlockLease acquire(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * Attempts to acquire the lock on all of {@code keys} at once without blocking the caller, retrying until
     * {@code waitTime} has passed: see {@link #tryAcquire(List, Duration, Duration)} and
     * {@link #tryAcquireAsync(String, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease of all the keys, or of empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireAsync(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the read lock of {@code key}, without waiting. Any number of readers hold
     * it together; a writer holding it, or waiting for it, keeps new readers out. The read-write lock of a
     * key is separate from its exclusive lock, and serves waiting readers and writers in the order they
     * arrived (see {@link #tryAcquireWrite(String, Duration, Duration)}).
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry, at least 1 ms and at most the {@code maxTtl}
     * @return the reader's lease, or empty if a writer holds or waits for the lock, or no quorum answered
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquireRead(String key, Duration ttl) {
        return tryAcquireRead(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the read lock of {@code key}, retrying after jittered delays until {@code waitTime}
     * has passed; see {@link #tryAcquireRead(String, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the reader's lease, or empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquireRead(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.read(key), ttl, waitTime));
    }

    /**
     * Attempts to acquire the read lock of {@code key} without blocking the caller; see
     * {@link #tryAcquireAsync(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the reader's lease, or of empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireReadAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.read(key), ttl, waitTime);
    }

    /**
     * Acquires the read lock of {@code key}, retrying until {@code waitTime} has passed, or throws.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep this reader's entry, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the reader's lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public RedlockLease acquireRead(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.read(key), ttl, waitTime);
    }

    /**
     * Makes one attempt to acquire the write lock of {@code key}, without waiting. It excludes readers and
     * other writers of the key. See {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at least 1 ms and at most the {@code maxTtl}
     * @return the writer's lease, or empty if readers or a writer hold the lock, or no quorum answered
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquireWrite(String key, Duration ttl) {
        return tryAcquireWrite(key, ttl, Duration.ZERO);
    }

    /**
     * Attempts to acquire the write lock of {@code key}, retrying after jittered delays until
     * {@code waitTime} has passed. A refused reader or writer is queued on the nodes, by arrival, until it
     * gets the lock or stops trying: readers arriving after a waiting writer wait for it, and a writer
     * arriving after waiting readers waits for them, so neither side can starve the other. The read-write
     * lock lives in keys of its own: {@code <prefix><key>}, the byte {@code 0xFF} (which no UTF-8 key
     * contains), then {@code writer}, {@code readers}, {@code queued-writers}, {@code queued-readers} or
     * {@code queue-expiry}. So it does not exclude, and is not excluded by, any exclusive lock, whatever its key.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the writer's lease, or empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public Optional<RedlockLease> tryAcquireWrite(String key, Duration ttl, Duration waitTime) {
        return Optional.ofNullable(this.service.tryAcquire(LockName.write(key), ttl, waitTime));
    }

    /**
     * Attempts to acquire the write lock of {@code key} without blocking the caller; see
     * {@link #tryAcquireAsync(String, Duration, Duration)} and {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the writer's lease, or of empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireWriteAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.write(key), ttl, waitTime);
    }

    /**
     * Acquires the write lock of {@code key}, retrying until {@code waitTime} has passed, or throws; see
     * {@link #tryAcquireWrite(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return the writer's lease
     * @throws RedlockAcquisitionException if it was not acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public RedlockLease acquireWrite(String key, Duration ttl, Duration waitTime) {
        return this.service.acquire(LockName.write(key), ttl, waitTime);
    }

    /**
     * Acquires the lock of {@code key} without blocking the caller, retrying until {@code waitTime} has passed: the
     * asynchronous form of {@link #acquire(String, Duration, Duration)}, for callers that must not block a thread
     * (coroutines, reactive pipelines). Cancelling the future stops the attempts, and a lease acquired meanwhile is
     * released.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease; it fails with the {@link RedlockAcquisitionException} that
     * {@link #acquire(String, Duration, Duration)} throws if the lock was not acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<RedlockLease> acquireAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * Acquires the lock on all of {@code keys} at once without blocking the caller: the asynchronous form of
     * {@link #acquire(List, Duration, Duration)}; see {@link #acquireAsync(String, Duration, Duration)}.
     * @param keys the locks' names, at least one, none blank; duplicates count once
     * @param ttl how long the nodes keep the keys, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease of all the keys; it fails with a {@link RedlockAcquisitionException} whose key is
     * the keys joined with commas if they were not acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<RedlockLease> acquireAsync(List<String> keys, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.allOf(keys), ttl, waitTime);
    }

    /**
     * Acquires the read lock of {@code key} without blocking the caller: the asynchronous form of
     * {@link #acquireRead(String, Duration, Duration)}; see {@link #acquireAsync(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the reader's key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the reader's lease; it fails with a {@link RedlockAcquisitionException} if it was not
     * acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<RedlockLease> acquireReadAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.read(key), ttl, waitTime);
    }

    /**
     * Acquires the write lock of {@code key} without blocking the caller: the asynchronous form of
     * {@link #acquireWrite(String, Duration, Duration)}; see {@link #acquireAsync(String, Duration, Duration)}.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the writer's key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the writer's lease; it fails with a {@link RedlockAcquisitionException} if it was not
     * acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<RedlockLease> acquireWriteAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.acquireAsync(LockName.write(key), ttl, waitTime);
    }

    /**
     * Attempts to acquire the lock without blocking the caller, retrying until {@code waitTime} has passed.
     * Cancelling the future stops the attempts, and a lease acquired meanwhile is released.
     * @param key the lock's name, not blank
     * @param ttl how long the nodes keep the key, at least 1 ms and at most the {@code maxTtl}
     * @param waitTime how long to keep trying; zero for a single attempt
     * @return a future of the lease, or of empty if it could not be acquired within the wait time
     * @throws IllegalArgumentException if an argument is invalid (the message names it)
     */
    public CompletableFuture<Optional<RedlockLease>> tryAcquireAsync(String key, Duration ttl, Duration waitTime) {
        return this.service.tryAcquireAsync(LockName.exclusive(key), ttl, waitTime);
    }

    /**
     * Frees the exclusive lock {@code key} on every node, whoever holds it: an operator's way out when the holder is
     * gone and the lock's ttl is long. Each node deletes the lock's key, {@code keyPrefix + key}, only where it is an
     * exclusive lock (a string with a time to live, as every Redlock client sets it; nothing else of the prefix, and no
     * key outside it, is touched: not the read-write lock of the same name, not a string without an expiry), and
     * publishes its release, so that waiters try again at once. A key of a lock on several keys is freed alone. The
     * holder, if it still runs, learns of it at its next extension, which fails: an automatically extended lease is
     * then lost ({@link RedlockLease#lost()} completes). Until then its {@link RedlockLease#isValid()} may still be true
     * while the nodes no longer hold it: revoke only a lock whose holder is gone, or whose work may overlap the next
     * holder's. The leases of the lock that this instance holds itself (a lock on several keys among them one named
     * {@code key}) are lost at once, before the revoke is sent.
     * <p>
     * The revoke goes to every node at once, each bounded by the node timeout, and is never sent again later (a revoke
     * sent once the node is back could free a lease granted since). A node that did not answer within the node timeout
     * may still apply it after this method returned, uncounted. It blocks the calling thread for at most about the node timeout; do not call it on an I/O
     * thread of the lock (a callback of its futures).
     * @param key the lock's name as the application gives it, without the key prefix; not blank
     * @return how many nodes held the lock and deleted it within the node timeout: 0 when none did (no such lock, or
     * no node answered), at most the number of nodes. Interrupted, it returns the nodes that confirmed so far, with the
     * thread's interrupt flag set
     * @throws IllegalArgumentException if {@code key} is null or blank (the message names {@code key})
     * @throws IllegalStateException if this lock is closed
     */
    public int revoke(String key) {
        return this.service.revoke(key, null);
    }

    /**
     * Frees the exclusive lock {@code key} on every node where the instance {@code expectedHolder} holds it, as
     * {@link #revoke(String)} does, and nowhere else: a node where another instance's token holds the lock (it was
     * taken since the operator looked, e.g. with {@link #inspect(String)}) keeps it, as does a lock of another Redlock
     * client (its token names no instance). This instance's own leases of the lock are lost first only when
     * {@code expectedHolder} is this instance's id.
     * @param key the lock's name as the application gives it, without the key prefix; not blank
     * @param expectedHolder the instance id of the holder to free it from ({@link LockInspection#holder()}); not blank
     * @return how many nodes held the lock for {@code expectedHolder} and deleted it within the node timeout
     * @throws IllegalArgumentException if {@code key} or {@code expectedHolder} is null or blank (the message names it)
     * @throws IllegalStateException if this lock is closed
     */
    public int revoke(String key, String expectedHolder) {
        return this.service.revokeFrom(key, expectedHolder);
    }

    /**
     * Returns the leases this instance acquired and has not released yet, including those whose validity
     * ran out meanwhile (see {@link RedlockLease#isValid()}).
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
     * Returns what each node is to the lock now: {@code UP} (voting), {@code DOWN} (not connected, not yet
     * checked since it connected, or a Sentinel group whose master no majority of its sentinels confirmed lately) or {@code QUARANTINED} (restarted recently: see {@link RestartQuarantine}; or
     * not an independent master: a replica, or a server listed twice under two addresses, which waits
     * {@link ChronoUnit#FOREVER}), with how much longer a quarantine lasts and why.
     * @return the nodes in configuration order, by {@code host:port}
     */
    public Map<String, NodeStatus> nodeStatuses() {
        return this.service.nodeStatuses();
    }

    /**
     * Reads what every node holds of the lock {@code key}: per node whether it holds it (an exclusive lock, also as a key
     * of a lock on several keys; a write lock; or readers), for how much longer, and which instance holds it (the
     * {@link Builder#instanceId(String) instance id} in its token); and whether a quorum of the voting nodes holds it.
     * Only reads: nothing is written, extended or released, and the lock's own leases are not consulted. Every node is
     * read at once; one that does not answer within about the node timeout shows as {@code DOWN}. It blocks the calling
     * thread for at most that long; do not call it on an I/O thread of the lock.
     * @param key the lock's name as the application writes it, without the key prefix; not blank
     * @return what the nodes hold, read now
     * @throws IllegalArgumentException if the key is blank (the message names it)
     */
    public LockInspection inspect(String key) {
        return this.service.inspect(key);
    }

    /**
     * The instance id an application gets when it sets none: {@code <application name>@host:pid}, or {@code host:pid}
     * without a name, the host's name read without a name lookup. Characters outside printable ASCII (and spaces) become
     * {@code _}, and a longer id keeps its last 64 characters (the host and pid).
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
     * Returns the longest time to live a lease may ask for ({@link Builder#maxTtl(Duration)}): no key this
     * lock sets lives longer without being extended.
     * @return the maximum ttl
     */
    public Duration maxTtl() {
        return this.service.maxTtl();
    }

    /**
     * Closes the lock. Acquisitions still waiting end at once: their futures fail, and the blocking methods
     * throw, with an {@link IllegalStateException}. Then it waits, at most three node timeouts plus 5 s, for the
     * attempts in flight and for every release and clean-up to be answered, so that nothing of an acquisition
     * whose caller is gone stays on a node (a lease that an attempt in flight still obtains is released). Then it
     * stops the automatic extension of every lease, and closes the connections to the nodes and, unless they
     * were given to the builder, the Lettuce resources. Leases still held are lost (their
     * {@link RedlockLease#lost()} completes, as nothing extends them any more) and their keys expire with their
     * ttl: the work they protect may still be running, so they are not released. A second call waits for the
     * first one's close. Called from a callback of an acquisition's future or of {@code lost()}, it never waits
     * for the work that runs that callback: on one of the lock's own threads, or inside an attempt, it closes in
     * the background instead; within the close itself (a lease it marks lost) it returns at once. Never throws.
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

        private @Nullable List<String> nodes;

        private @Nullable Duration nodeTimeout = RedlockConfig.DEFAULT_NODE_TIMEOUT;

        private double clockDriftFactor = RedlockConfig.DEFAULT_CLOCK_DRIFT_FACTOR;

        private @Nullable Duration retryDelay = RedlockConfig.DEFAULT_RETRY_DELAY;

        private @Nullable String keyPrefix = RedlockConfig.DEFAULT_KEY_PREFIX;

        private @Nullable String instanceId;

        private double acquisitionBudget = RedlockConfig.DEFAULT_ACQUISITION_BUDGET;

        private @Nullable Duration maxTtl = RedlockConfig.DEFAULT_MAX_TTL;

        private @Nullable RestartQuarantine restartQuarantine = RedlockConfig.DEFAULT_RESTART_QUARANTINE;

        private @Nullable SslOptions sslOptions;

        private @Nullable RedisCredentialsProvider credentials;

        private boolean fencing = RedlockConfig.DEFAULT_FENCING;

        private @Nullable ClientResources clientResources;

        private @Nullable NodeConnector connector;

        private @Nullable RedlockObserver observer;

        private @Nullable ObservationRegistry observationRegistry;

        private @Nullable RedlockObservationConvention observationConvention;

        private Builder() {
        }

        /**
         * Sets the independent Redis masters, as URIs Lettuce understands ({@code redis://host:port},
         * {@code rediss://…} for TLS, with password and database as needed). Three or five are typical.
         * @param nodes the node URIs
         * @return this builder
         */
        public Builder nodes(List<String> nodes) {
            this.nodes = (nodes != null) ? new ArrayList<>(nodes) : null; // may hold nulls: build() names them
            return this;
        }

        /**
         * Sets the independent Redis masters; see {@link #nodes(List)}.
         * @param nodes the node URIs
         * @return this builder
         */
        public Builder nodes(String... nodes) {
            this.nodes = (nodes != null) ? new ArrayList<>(Arrays.asList(nodes)) : null; // as nodes(List) does
            return this;
        }

        /**
         * Sets the time after which a node that has not answered a command counts as a "no". Keep it small
         * compared to the ttl. Default 50 ms.
         * @param nodeTimeout the per-node command timeout
         * @return this builder
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        /**
         * Sets the fraction of the ttl allowed for clock drift between the nodes; the validity of a lease
         * is shortened by {@code ttl * factor + 2 ms}. Default 0.01.
         * @param clockDriftFactor from 0 (inclusive) to 1 (exclusive)
         * @return this builder
         */
        public Builder clockDriftFactor(double clockDriftFactor) {
            this.clockDriftFactor = clockDriftFactor;
            return this;
        }

        /**
         * Sets the base delay between attempts while waiting for a lock; each delay is drawn at random
         * between half and one and a half times it, so that competing clients desynchronise. Default 100 ms.
         * @param retryDelay the base delay, positive
         * @return this builder
         */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = retryDelay;
            return this;
        }

        /**
         * Names this instance in every lock it takes: each lease's token is {@code <instance-id>:<random>}, so that
         * {@link Redlock#inspect(String)}, an operator reading a node, and the failures of other instances show who
         * holds a lock. Default {@code host:pid}; the Spring Boot starter's is {@code ${spring.application.name}@host:pid}.
         * @param instanceId 1 to 64 printable ASCII characters without spaces; not a secret (any client that reads a
         * lock's key sees it)
         * @return this builder
         */
        public Builder instanceId(String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        /**
         * Sets the prefix of every Redis key this lock writes. Default {@code "redlock:"}.
         * @param keyPrefix the prefix, possibly empty
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Accepts a lock only if the attempt took at most this fraction of the ttl, leaving the rest for
         * the holder's work (e.g. {@code 1.0 / 3} for the "elapsed &lt;= ttl/3" variant of the algorithm).
         * An attempt over budget counts as failed and is cleaned up. Default 1.0, i.e. no budget beyond
         * the validity rule.
         * @param fractionOfTtl greater than 0, at most 1
         * @return this builder
         */
        public Builder acquisitionBudget(double fractionOfTtl) {
            this.acquisitionBudget = fractionOfTtl;
            return this;
        }

        /**
         * Sets the longest time to live that any acquisition or extension may ask for; a larger one is refused
         * with an {@link IllegalArgumentException} naming {@code ttl}. Work longer than that extends its lease
         * ({@link RedlockLease#autoExtend(Duration)}). It bounds how long a node that lost its keys in a restart
         * must wait before it may vote again. Default 60 s.
         * @param maxTtl the longest ttl, at least 1 ms
         * @return this builder
         */
        public Builder maxTtl(Duration maxTtl) {
            this.maxTtl = maxTtl;
            return this;
        }

        /**
         * Sets when a node that restarted may vote again; see {@link RestartQuarantine}. Default
         * {@link RestartQuarantine#AUTO}: a node that restarted while in use waits the longest {@code maxTtl} that a
         * client of the key prefix recorded for it, never less than this one's (plus drift and a second), after its
         * start; fresh nodes vote at once, and so do nodes with {@code appendfsync always} that prove they kept their data.
         * @param restartQuarantine the rule
         * @return this builder
         */
        public Builder restartQuarantine(RestartQuarantine restartQuarantine) {
            this.restartQuarantine = restartQuarantine;
            return this;
        }

        /**
         * Gives each exclusive and write lease a fencing token ({@link RedlockLease#fencingToken()}): a number
         * strictly greater than the token of every acquisition of the same key that returned before this one
         * began, without any clock assumption, also after a lease expired unreleased and after a minority of
         * nodes restarted empty; beyond that (every node restarted empty), as long as the nodes' clocks did not
         * go back by more than the time between the two acquisitions. Storage that accepts a write only with a token above the last one it saw is
         * then safe from a holder that paused past its lease. It costs one more parallel round trip per
         * acquisition, and one counter key per node. Default off.
         * @param fencing whether leases carry fencing tokens
         * @return this builder
         */
        public Builder fencing(boolean fencing) {
            this.fencing = fencing;
            return this;
        }

        /**
         * Shares Lettuce resources (event loops, timer) with the application instead of creating them;
         * the {@code Redlock} then does not shut them down. Their timer's tick bounds how precisely node
         * timeouts fire (Lettuce's default ticks every 100 ms; the resources a {@code Redlock} creates
         * itself tick every 10 ms).
         * @param clientResources the resources to use
         * @return this builder
         */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = clientResources;
            return this;
        }

        /**
         * Reports what the lock does (node commands, releases, extensions) to an observer, e.g. for metrics.
         * @param observer the observer, or {@code null} for none
         * @return this builder
         */
        public Builder observer(@Nullable RedlockObserver observer) {
            this.observer = observer;
            return this;
        }

        /**
         * Observes every acquisition (waiting included), release and extension as a Micrometer {@code Observation}
         * named {@code redlock.lock}: with Micrometer Tracing, each is a span (a child of the caller's current
         * observation) with its outcome and what each node answered. Needs {@code io.micrometer:micrometer-observation}
         * on the classpath (an optional dependency); without a registry nothing is observed and nothing of it is
         * loaded. See {@link io.github.redlock.core.observation.DefaultRedlockObservationConvention} for the names.
         * @param observationRegistry the registry, or {@code null} for none
         * @return this builder
         */
        public Builder observationRegistry(@Nullable ObservationRegistry observationRegistry) {
            this.observationRegistry = observationRegistry;
            return this;
        }

        /**
         * Replaces the convention of the observations (their names and key values); without one, a global convention
         * registered on the registry for {@link io.github.redlock.core.observation.RedlockObservationContext}, else the
         * {@link io.github.redlock.core.observation.DefaultRedlockObservationConvention}. Used only with an
         * {@link #observationRegistry(ObservationRegistry) observation registry}.
         * @param observationConvention the convention, or {@code null} for the default
         * @return this builder
         */
        public Builder observationConvention(@Nullable RedlockObservationConvention observationConvention) {
            this.observationConvention = observationConvention;
            return this;
        }

        /**
         * Opens node connections through the given connector instead of a Lettuce client of the
         * {@code Redlock}'s own; the connector's client must have {@link NodeConnector#clientOptions(Duration)
         * the options Redlock relies on}. For integrations such as the Spring Boot starter.
         * @param connector opens the connection to a node
         * @return this builder
         */
        public Builder connector(NodeConnector connector) {
            this.connector = connector;
            return this;
        }

        /**
         * Sets the TLS options of the connections the {@code Redlock} opens itself to {@code rediss://} nodes: e.g. a
         * trust store with a private certificate authority, or a client certificate
         * ({@code SslOptions.builder().jdkSslProvider().trustManager(caPemFile).build()}). Without them, Lettuce's
         * defaults apply (the JVM's trust store). Not used with a {@link #connector(NodeConnector) connector}, whose
         * client has its own. A node whose certificate these options do not trust fails {@link #build()}.
         * @param sslOptions the TLS options, or {@code null} for Lettuce's defaults
         * @return this builder
         */
        public Builder sslOptions(@Nullable SslOptions sslOptions) {
            this.sslOptions = sslOptions;
            return this;
        }

        /**
         * Authenticates to every node with the credentials a provider gives, asked again at every connection and
         * reconnection: rotating passwords, cloud IAM tokens. It replaces the user and password written in the node
         * URIs. A node that refuses them counts as "no", and its status says why ({@code WRONGPASS}); it is tried again.
         * @param credentials the provider, or {@code null} for the URIs' own credentials
         * @return this builder
         */
        public Builder credentialsProvider(@Nullable RedisCredentialsProvider credentials) {
            this.credentials = credentials;
            return this;
        }

        /**
         * Validates the configuration, connects to the nodes and returns the lock. Unreachable nodes do
         * not fail the build: they count as "no" until they can be reached, and are retried in the background.
         * A node whose TLS certificate is not trusted (an unknown certificate authority, a name that does not match)
         * does: that is a configuration to fix, never an outage to wait out.
         * @return the lock, to be closed when no longer needed
         * @throws RedlockArgumentException if a setting is invalid (the message names it and says what to write;
         * {@link RedlockArgumentException#getArgument()} gives its name), or a node's certificate is not trusted
         * (argument {@code nodes})
         */
        public Redlock build() {
            RedlockConfig config = RedlockConfig.of(this.nodes, this.nodeTimeout, this.clockDriftFactor, this.retryDelay, this.keyPrefix,
                    this.acquisitionBudget, this.maxTtl, this.restartQuarantine, this.fencing, this.clientResources, this.connector,
                    this.sslOptions, this.credentials, this.observer, this.observationRegistry, this.observationConvention, this.instanceId);
            return new Redlock(LockService.of(config));
        }

    }

}
