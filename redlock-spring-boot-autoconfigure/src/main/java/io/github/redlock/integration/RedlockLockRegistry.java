package io.github.redlock.integration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@link RenewableLockRegistry} whose locks are Redlocks: the lock of {@code lockKey} is
 * the exclusive Redlock of {@code <registryKey>:<lockKey>}, so that {@code LockRegistryLeaderInitiator} elects
 * one leader across instances and keeps it while a quorum of nodes lasts.
 * <ul>
 * <li>Each {@link java.util.concurrent.locks.Lock} follows the {@code Lock} contract: it has an owner thread,
 * is reentrant, {@code tryLock} waits at most its timeout (woken by release messages, not polling), and
 * {@code unlock} by another thread throws {@link IllegalMonitorStateException}.</li>
 * <li>A held lock's lease is extended automatically (by its ttl, when half remains; for at most
 * {@code maxHold}). When it is lost nonetheless, the owner thread is interrupted at once (unless
 * {@link #setInterruptOnLoss(boolean) turned off}): {@code LockRegistryLeaderInitiator} then revokes the
 * leadership right away rather than at its next heartbeat, before the keys expire on the nodes. A later
 * {@code unlock} throws {@link IllegalStateException}: the work done under the lock may have overlapped
 * another holder's.</li>
 * <li>{@link #lease(Object)} gives the lease behind a held lock; with fencing on, its
 * {@link RedlockLease#fencingToken()} is the leadership's epoch, greater for every later leader.</li>
 * </ul>
 * Thread-safe. At most {@value #CAPACITY} unheld locks are kept for reuse.
 */
public final class RedlockLockRegistry implements RenewableLockRegistry<DistributedLock> {

    /** How many locks that nobody holds are kept, at most, for reuse. */
    public static final int CAPACITY = 10_000;

    /** The default prefix of the registry's keys. */
    public static final String DEFAULT_REGISTRY_KEY = "lock-registry";

    /** The default time to live of a lock's lease (renewed automatically while it is held). */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    private final Redlock redlock;

    private final String registryKey;

    private final Duration ttl;

    private volatile Duration maxHold = Duration.ofDays(365);

    private volatile boolean interruptOnLoss = true;

    /** The locks by key, least recently used first; guarded by {@link #locksGuard}. */
    private final Map<String, RedlockDistributedLock> locks = new LinkedHashMap<>(16, 0.75f, true);

    private final ReentrantLock locksGuard = new ReentrantLock();

    /**
     * Creates a registry whose keys are {@code lock-registry:<lockKey>} and whose leases live 30 s between
     * renewals.
     * @param redlock the lock to take them with
     */
    public RedlockLockRegistry(Redlock redlock) {
        this(redlock, DEFAULT_REGISTRY_KEY, DEFAULT_TTL);
    }

    /**
     * Creates a registry.
     * @param redlock the lock to take them with
     * @param registryKey the prefix of the registry's keys: a lock's key is {@code <registryKey>:<lockKey>}
     * @param ttl the time to live of each lease between automatic renewals, at most the lock's max ttl
     * @throws IllegalArgumentException if {@code ttl} is not positive or above the lock's max ttl
     */
    public RedlockLockRegistry(Redlock redlock, String registryKey, Duration ttl) {
        this.redlock = Objects.requireNonNull(redlock, "redlock");
        this.registryKey = Objects.requireNonNull(registryKey, "registryKey");
        this.ttl = checkedTtl(ttl, redlock);
    }

    /**
     * Sets how long after its acquisition a held lock stops being renewed automatically; its lease then runs
     * out and the lock is lost. One year by default.
     * @param maxHold how long a lock may be held, positive
     */
    public void setMaxHold(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero()) {
            throw new RedlockArgumentException("maxHold", "maxHold must be positive (e.g. 24h), was " + maxHold);
        }
        this.maxHold = maxHold;
    }

    /**
     * Sets whether the thread that holds a lock is interrupted when the lock's lease is lost (true by default).
     * @param interruptOnLoss whether to interrupt the owner thread on a loss
     */
    public void setInterruptOnLoss(boolean interruptOnLoss) {
        this.interruptOnLoss = interruptOnLoss;
    }

    /**
     * Returns the lock of a key; the same lock for the same key while it is held or recently used.
     * @param lockKey the key, a {@link String}
     * @return the lock
     * @throws IllegalArgumentException if the key is not a String
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        String key = stringKey(lockKey);
        this.locksGuard.lock();
        try {
            RedlockDistributedLock lock = this.locks.computeIfAbsent(key,
                    (name) -> new RedlockDistributedLock(this.redlock, this.registryKey + ":" + name, this));
            trim();
            return lock;
        }
        finally {
            this.locksGuard.unlock();
        }
    }

    /**
     * Renews the lease of a lock the current thread holds by the registry's ttl.
     * @param lockKey the lock's key
     * @throws IllegalStateException if the current thread does not hold the lock, or no quorum renewed it
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, this.ttl);
    }

    /**
     * Renews the lease of a lock the current thread holds: its keys live at least {@code ttl} more.
     * @param lockKey the lock's key
     * @param ttl the time to live to renew to, at most the lock's max ttl
     * @throws IllegalStateException if the current thread does not hold the lock, or no quorum renewed it
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        RedlockDistributedLock lock = held(stringKey(lockKey));
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("The lock '" + lockKey + "' is not held by this thread: only its holder may renew it");
        }
        lock.renew(checkedTtl(ttl, this.redlock));
    }

    /**
     * Returns the lease behind a lock while some thread of this registry holds it: its validity, its loss
     * signal and, with fencing on, its fencing token (the leadership's epoch).
     * @param lockKey the lock's key
     * @return the lease, or empty when the lock is not held through this registry
     */
    public Optional<RedlockLease> lease(Object lockKey) {
        RedlockDistributedLock lock = held(stringKey(lockKey));
        return Optional.ofNullable((lock != null) ? lock.lease() : null);
    }

    Duration ttl() {
        return this.ttl;
    }

    Duration maxHold() {
        return this.maxHold;
    }

    boolean interruptOnLoss() {
        return this.interruptOnLoss;
    }

    @Override
    public String toString() {
        return "RedlockLockRegistry[registryKey=" + this.registryKey + ", ttl=" + this.ttl + "]";
    }

    private @Nullable RedlockDistributedLock held(String key) {
        this.locksGuard.lock();
        try {
            return this.locks.get(key);
        }
        finally {
            this.locksGuard.unlock();
        }
    }

    /** Drops the least recently used locks that nobody holds while there are more than {@link #CAPACITY}. */
    private void trim() {
        var entries = this.locks.values().iterator();
        int excess = this.locks.size() - CAPACITY;
        while (excess > 0 && entries.hasNext()) {
            if (!entries.next().isLocked()) {
                entries.remove();
                excess--;
            }
        }
    }

    private static String stringKey(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("A RedlockLockRegistry's lock keys are Strings, was "
                    + ((lockKey != null) ? lockKey.getClass().getName() : "null"));
        }
        return key;
    }

    private static Duration checkedTtl(Duration ttl, Redlock redlock) {
        if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(redlock.maxTtl()) > 0) {
            throw new RedlockArgumentException("ttl", "ttl must be positive and at most the lock's maxTtl of " + redlock.maxTtl()
                    + " (a held lock is renewed automatically), was " + ttl);
        }
        return ttl;
    }

}
