package io.github.redlock.integration;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One lock of a {@link RedlockLockRegistry}: a local reentrant lock for the threads of this process, then the
 * Redlock for the other processes. The local lock carries the owner thread and the hold count; the lease is
 * taken by the first hold and released by the last unlock.
 */
final class RedlockDistributedLock implements DistributedLock {

    /** How long one wait of {@link #lock()} lasts before it tries again: every wait has a bound. */
    private static final Duration WAIT_CHUNK = Duration.ofMinutes(1);

    private final Redlock redlock;

    private final String key;

    private final RedlockLockRegistry registry;

    /** Held by the owner thread for as long as it holds this lock; reentrant. */
    private final ReentrantLock local = new ReentrantLock();

    /** Guards {@link #lease} and {@link #owner} against the loss callback, which interrupts the owner. */
    private final ReentrantLock state = new ReentrantLock();

    private volatile @Nullable RedlockLease lease;

    private @Nullable Thread owner;

    RedlockDistributedLock(Redlock redlock, String key, RedlockLockRegistry registry) {
        this.redlock = redlock;
        this.key = key;
        this.registry = registry;
    }

    @Override
    public void lock() {
        lock(this.registry.ttl());
    }

    @Override
    public void lock(Duration ttl) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (tryLock(WAIT_CHUNK, ttl)) {
                        return;
                    }
                }
                catch (InterruptedException ex) {
                    interrupted = true; // lock() is not interruptible: remembered, and the wait goes on
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!tryLock(WAIT_CHUNK, this.registry.ttl())) {
            // every wait is bounded; this one goes on until the lock is taken or the thread interrupted
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, this.registry.ttl());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), this.registry.ttl());
    }

    /**
     * Takes the lock within {@code waitTime}: first this process's lock, then the Redlock for what is left of
     * the wait. A thread that holds it already holds it once more while its lease is valid; when the lease was
     * lost, the Redlock is taken again (as {@code LockRegistryLeaderInitiator}'s heartbeat expects), and if that
     * fails the thread holds the lock no more at all: none of its holds outlives the lease.
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("Interrupted before taking the lock '" + this.key + "'");
        }
        long start = System.nanoTime();
        if (!this.local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        boolean reentered = this.local.getHoldCount() > 1;
        RedlockLease held = this.lease;
        if (reentered && held != null && held.isValid()) {
            return true;
        }
        if (reentered && held != null) {
            held.release(); // lost: its token may still sit on some nodes, where it would refuse the re-take
        }
        boolean taken = false;
        try {
            Duration left = waitTime.minusNanos(System.nanoTime() - start);
            taken = takeLease(left.isNegative() ? Duration.ZERO : left, ttl);
            return taken;
        }
        finally {
            if (!taken) {
                // Not held any more, by any of this thread's holds: a lease lost and not taken again ends them
                // all, so that no hold outlives it (a later unlock() is then refused as the thread's own is gone).
                int holds = reentered ? this.local.getHoldCount() : 1;
                if (reentered) {
                    clearLease();
                }
                for (int i = 0; i < holds; i++) {
                    this.local.unlock();
                }
            }
        }
    }

    private void clearLease() {
        this.state.lock();
        try {
            this.lease = null;
            this.owner = null;
        }
        finally {
            this.state.unlock();
        }
    }

    /** Takes the Redlock and makes its lease this lock's, extended automatically and watched for its loss. */
    private boolean takeLease(Duration waitTime, Duration ttl) {
        Optional<RedlockLease> taken = this.redlock.tryAcquire(this.key, ttl, waitTime);
        if (taken.isEmpty()) {
            return false;
        }
        RedlockLease held = taken.get();
        this.state.lock();
        try {
            this.lease = held;
            this.owner = Thread.currentThread();
        }
        finally {
            this.state.unlock();
        }
        held.autoExtend(this.registry.maxHold());
        held.lost().thenRun(() -> lost(held));
        return true;
    }

    /**
     * Releases one hold; the last releases the lease on the nodes.
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lease was lost before this unlock (the lock is released all the same)
     */
    @Override
    public void unlock() {
        if (!this.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("The lock '" + this.key + "' is not held by the current thread ("
                    + Thread.currentThread().getName() + "): only its owner may unlock it");
        }
        if (this.local.getHoldCount() > 1) {
            this.local.unlock();
            return;
        }
        RedlockLease held = this.lease;
        clearLease();
        try {
            Objects.requireNonNull(held, "an owner's last hold has a lease"); // set by its first hold, cleared only at its end
            held.release();
            Optional<String> lost = held.lostReason(); // after the release: a loss just before it counts too
            if (lost.isPresent()) {
                throw new IllegalStateException("The lock '" + this.key + "' was lost before this unlock (" + lost.get()
                        + "): another process may have held it meanwhile");
            }
        }
        finally {
            this.local.unlock();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("A RedlockLockRegistry lock has no conditions: it is held across processes");
    }

    /** Renews the current hold's lease; the caller holds the lock. */
    void renew(Duration ttl) {
        RedlockLease held = this.lease;
        if (held == null || !held.extend(ttl)) {
            throw new IllegalStateException("The lock '" + this.key + "' could not be renewed: "
                    + ((held == null) ? "it is not held" : held.lostReason().orElse("no quorum of nodes confirmed it in time")));
        }
    }

    boolean isHeldByCurrentThread() {
        return this.local.isHeldByCurrentThread();
    }

    boolean isLocked() {
        return this.local.isLocked();
    }

    @Nullable RedlockLease lease() {
        return this.lease;
    }

    /** On the lease's loss: interrupts the owner, if it still holds this lease and the registry asks for it. */
    private void lost(RedlockLease held) {
        if (!this.registry.interruptOnLoss()) {
            return;
        }
        this.state.lock();
        try {
            if (this.lease == held && this.owner != null) {
                this.owner.interrupt();
            }
        }
        finally {
            this.state.unlock();
        }
    }

    @Override
    public String toString() {
        RedlockLease held = this.lease;
        return "RedlockDistributedLock[key=" + this.key + ", " + ((held != null) ? "held" : "free") + "]";
    }

}
