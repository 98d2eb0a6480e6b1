package io.github.redlock.aop;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.redlock.annotation.OnFailure;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Takes the lock of one annotated call, in the method's mode, waiting as long as it says, and turns the
 * lease into a {@link HeldLock} that is watched (auto-extension, loss) and reported to the observers.
 */
final class LockTaker {

    private final ObjectProvider<Redlock> redlock;

    private final GuardedObservers observers;

    LockTaker(ObjectProvider<Redlock> redlock, GuardedObservers observers) {
        this.redlock = redlock;
        this.observers = observers;
    }

    /** Returns the held lock, or null when the call is to be skipped; throws when it must fail. */
    @Nullable HeldLock acquire(LockedMethod locked, List<String> keys) {
        Redlock lock = this.redlock.getObject();
        long start = System.nanoTime();
        RedlockLease lease;
        try {
            lease = (keys.size() == 1) ? acquire(lock, locked, keys.get(0)) : acquireAll(lock, locked, keys);
        }
        catch (RuntimeException ex) {
            this.observers.acquisition(locked.template(), false, System.nanoTime() - start);
            throw ex;
        }
        // Never throws (observers are guarded), so the lease below always reaches a holder that releases it.
        Runnable onRelease = this.observers.acquisition(locked.template(), lease != null, System.nanoTime() - start);
        if (lease == null) {
            return null;
        }
        // A synchronous method runs on this thread; a suspend function's coroutine is cancelled by CoroutineLocking instead.
        Thread runner = (locked.interruptOnLoss() && locked.result().synchronous()) ? Thread.currentThread() : null;
        HeldLock held = new HeldLock(lease, locked, this.observers, onRelease, runner);
        held.watch();
        return held;
    }

    /**
     * Takes the lock without blocking the caller: the future completes with the held lock, with null when the call
     * is to be skipped, or fails as the blocking form throws. Cancelling it stops the attempts, and a lock taken
     * meanwhile is let go. For a call that holds the lock on no thread of its own: a suspend function's.
     */
    CompletableFuture<HeldLock> acquireAsync(LockedMethod locked, List<String> keys) {
        Redlock lock = this.redlock.getObject();
        long start = System.nanoTime();
        // The core's own future, which its cancel stops: of a lease, or (SKIP) of an optional lease.
        CompletableFuture<?> acquisition;
        try {
            acquisition = (keys.size() == 1) ? acquireAsync(lock, locked, keys.get(0)) : acquireAllAsync(lock, locked, keys);
        }
        catch (RuntimeException ex) {
            this.observers.acquisition(locked.template(), false, System.nanoTime() - start);
            throw ex;
        }
        CompletableFuture<HeldLock> result = new CompletableFuture<>();
        acquisition.whenComplete((value, failure) -> {
            RedlockLease lease = (value instanceof Optional<?> found) ? (RedlockLease) found.orElse(null) : (RedlockLease) value;
            Runnable onRelease = this.observers.acquisition(locked.template(), lease != null, System.nanoTime() - start);
            if (failure != null) {
                result.completeExceptionally((failure instanceof CompletionException) ? failure.getCause() : failure);
                return;
            }
            if (lease == null) {
                result.complete(null);
                return;
            }
            HeldLock held = new HeldLock(lease, locked, this.observers, onRelease, null);
            held.watch();
            if (!result.complete(held)) {
                held.dropAsync(); // the caller went away (cancelled) as the lock was granted
            }
        });
        result.whenComplete((held, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false); // stops the attempts; the core releases a lease that arrives later
            }
        });
        return result;
    }

    private static CompletableFuture<?> acquireAllAsync(Redlock lock, LockedMethod locked, List<String> keys) {
        return (locked.onFailure() == OnFailure.SKIP) ? lock.tryAcquireAsync(keys, locked.ttl(), locked.waitTime())
                : lock.acquireAsync(keys, locked.ttl(), locked.waitTime());
    }

    private static CompletableFuture<?> acquireAsync(Redlock lock, LockedMethod locked, String key) {
        boolean skip = locked.onFailure() == OnFailure.SKIP;
        return switch (locked.mode()) {
            case EXCLUSIVE -> skip ? lock.tryAcquireAsync(key, locked.ttl(), locked.waitTime())
                    : lock.acquireAsync(key, locked.ttl(), locked.waitTime());
            case READ -> skip ? lock.tryAcquireReadAsync(key, locked.ttl(), locked.waitTime())
                    : lock.acquireReadAsync(key, locked.ttl(), locked.waitTime());
            case WRITE -> skip ? lock.tryAcquireWriteAsync(key, locked.ttl(), locked.waitTime())
                    : lock.acquireWriteAsync(key, locked.ttl(), locked.waitTime());
        };
    }

    private static @Nullable RedlockLease acquireAll(Redlock lock, LockedMethod locked, List<String> keys) {
        return (locked.onFailure() == OnFailure.SKIP) ? lock.tryAcquire(keys, locked.ttl(), locked.waitTime()).orElse(null)
                : lock.acquire(keys, locked.ttl(), locked.waitTime());
    }

    private static @Nullable RedlockLease acquire(Redlock lock, LockedMethod locked, String key) {
        boolean skip = locked.onFailure() == OnFailure.SKIP;
        return switch (locked.mode()) {
            case EXCLUSIVE -> skip ? lock.tryAcquire(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquire(key, locked.ttl(), locked.waitTime());
            case READ -> skip ? lock.tryAcquireRead(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquireRead(key, locked.ttl(), locked.waitTime());
            case WRITE -> skip ? lock.tryAcquireWrite(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquireWrite(key, locked.ttl(), locked.waitTime());
        };
    }

}
