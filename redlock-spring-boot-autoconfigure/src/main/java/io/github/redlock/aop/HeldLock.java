package io.github.redlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.core.RedlockLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A lock held for annotated calls: extended automatically if asked, watched for loss (counted once; the
 * acquiring thread interrupted if asked), and released once, with the observers told of the release.
 * <p>
 * Invariant: the lease is released exactly once, when its last holder lets go, and never while a holder's
 * work is still under way. The call that acquired it is one holder, until its method returned or threw or,
 * for an asynchronous result, until that result completed or was cancelled. Each call that re-entered the
 * lock on a thread (or in a Kotlin coroutine) holding it and returned an asynchronous or reactive result, or was
 * a suspend function, is another holder, until its own result is complete. Once the count of holders reached zero
 * it never rises again: {@link #retain()} fails, and a late re-entry takes a lock of its own.
 */
final class HeldLock {

    private static final Log logger = LogFactory.getLog(HeldLock.class);

    private static final AtomicIntegerFieldUpdater<HeldLock> HOLDERS = AtomicIntegerFieldUpdater.newUpdater(HeldLock.class,
            "holders");

    private static final AtomicIntegerFieldUpdater<HeldLock> LOSS_COUNTED = AtomicIntegerFieldUpdater.newUpdater(HeldLock.class,
            "lossCounted");

    private final RedlockLease lease;

    private final LockedMethod locked;

    private final GuardedObservers observers;

    private final @Nullable Runnable onRelease;

    private volatile int holders = 1; // the acquiring call

    private volatile int lossCounted; // 1 once counted; an updater, not an AtomicBoolean per call

    /** Completed once the lease's release was answered (or given up on), whatever its outcome. */
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    /** The thread to interrupt on loss, while it runs the method; null when not asked to. */
    private final @Nullable Thread runner;

    /** Guards the runner's interrupt; null when there is no runner. */
    private final @Nullable ReentrantLock runnerLock;

    private boolean running = true; // guarded by runnerLock

    /** Whether the loss interrupted the runner, which was not interrupted before. */
    private boolean interruptedByLoss; // guarded by runnerLock

    HeldLock(RedlockLease lease, LockedMethod locked, GuardedObservers observers, @Nullable Runnable onRelease, @Nullable Thread runner) {
        this.lease = lease;
        this.locked = locked;
        this.observers = observers;
        this.onRelease = onRelease;
        this.runner = runner;
        this.runnerLock = (runner != null) ? new ReentrantLock() : null;
    }

    /** The lease held. */
    RedlockLease lease() {
        return this.lease;
    }

    /** The mode of the lock held, which decides what a nested call on the same key may do. */
    LockMode mode() {
        return this.locked.mode();
    }

    /** Starts the auto-extension and the loss watch, as the method asks. */
    void watch() {
        if (this.locked.maxHold() != null) {
            this.lease.autoExtend(this.locked.maxHold());
        }
        if (this.locked.watchesLoss()) {
            this.lease.lost().thenRun(this::onLost);
        }
    }

    /**
     * Adds a holder, unless the last one has let go already.
     * @return whether the caller now holds the lock and must {@link #drop() drop} it when done
     */
    boolean retain() {
        for (;;) {
            int count = this.holders;
            if (count == 0) {
                return false;
            }
            if (HOLDERS.compareAndSet(this, count, count + 1)) {
                return true;
            }
        }
    }

    /**
     * Lets go of one hold; the last one releases the lease and waits for the nodes' answers (a synchronous method's
     * caller expects the lock to be free when the method has returned).
     */
    void drop() {
        if (HOLDERS.decrementAndGet(this) == 0) {
            release(true);
        }
    }

    /**
     * Lets go of one hold without blocking.
     * @return completes when this drop's part is done: at once unless it released the lease, then when the
     * nodes answered
     */
    CompletableFuture<?> dropAsync() {
        if (HOLDERS.decrementAndGet(this) == 0) {
            return release(false);
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Completes once the lease has been released; a lock taken anew after it then finds the key gone. */
    CompletableFuture<Void> released() {
        return this.released;
    }

    /**
     * The acquiring call's method returned or threw; called on its thread. From now on the loss interrupts no
     * one, though the lock may still be held for asynchronous work. An interrupt that the loss delivered and
     * that the method left set is cleared: it was meant for the method, and must not reach its caller (the
     * next task of a pool, the caller's next wait). The thread's own earlier interrupt is kept.
     */
    void callReturned() {
        if (this.runnerLock == null) { // no runner
            return;
        }
        boolean clear;
        this.runnerLock.lock();
        try {
            this.running = false;
            clear = this.interruptedByLoss;
        }
        finally {
            this.runnerLock.unlock();
        }
        if (clear && Thread.currentThread() == this.runner) {
            Thread.interrupted();
        }
    }

    private CompletableFuture<Void> release(boolean wait) {
        try {
            checkValidity();
            if (wait) {
                this.lease.release(); // never throws; bounded by the core
            }
        }
        finally {
            this.lease.releaseAsync().whenComplete((done, failure) -> {
                ended();
                this.released.complete(null);
            });
        }
        return this.released;
    }

    /** The lease was lost while a holder worked (the core logged why). */
    private void onLost() {
        countLoss();
        if (this.runner != null && this.runnerLock != null) {
            this.runnerLock.lock();
            try {
                // Under the lock, so that no interrupt lands after callReturned(); the runner's own interrupt,
                // if it had one, is not ours to clear later.
                if (this.running && !this.runner.isInterrupted()) {
                    this.interruptedByLoss = true;
                    this.runner.interrupt();
                }
            }
            finally {
                this.runnerLock.unlock();
            }
        }
    }

    private void checkValidity() {
        if (!this.lease.isValid() && countLoss() && !this.locked.watchesLoss()) {
            logger.error("Lock '" + this.lease.key() + "' expired while " + this.locked.description() + " still ran ("
                    + "ttl " + this.locked.ttl() + "); another caller may have run at the same time. Give it a longer "
                    + "ttl, or autoExtend = true.");
        }
    }

    /** Counts the loss unless it was counted already; returns whether this call counted it. */
    private boolean countLoss() {
        if (!LOSS_COUNTED.compareAndSet(this, 0, 1)) {
            return false;
        }
        this.observers.lost(this.locked.template());
        return true;
    }

    private void ended() {
        if (this.onRelease != null) {
            this.onRelease.run(); // guarded: never throws
        }
    }

}
