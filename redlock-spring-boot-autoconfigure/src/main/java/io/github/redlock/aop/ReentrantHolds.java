package io.github.redlock.aop;

import java.util.HashMap;
import java.util.Map;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.RedlockContext;

/**
 * The locks the current thread holds while it runs annotated methods, by key, so that a nested call for a key
 * the thread holds re-enters that lock instead of waiting for itself. Read-write locks are kept apart from
 * the exclusive locks of the same keys.
 */
final class ReentrantHolds {

    /** Marks the read-write locks apart from the exclusive locks of the same keys (no key starts with NUL). */
    private static final String READ_WRITE = "\u0000rw:";

    private final ThreadLocal<Map<String, HeldLock>> held = ThreadLocal.withInitial(HashMap::new);

    /** How a lock of this mode on this key is recorded. */
    static String heldKey(LockMode mode, String key) {
        return (mode == LockMode.EXCLUSIVE) ? key : READ_WRITE + key;
    }

    /** The lock this thread holds for the key, or null. */
    HeldLock current(String heldKey) {
        return this.held.get().get(heldKey);
    }

    /**
     * Runs the call with {@code hold} recorded as this thread's lock of the key, and its lease as the
     * {@link RedlockContext#currentLease() current lease}, and restores what was recorded before when it returns
     * or throws. Runs on the thread that calls the method.
     */
    Object proceedHolding(String heldKey, HeldLock hold, Invocation call) throws Throwable {
        Map<String, HeldLock> mine = this.held.get();
        HeldLock previous = mine.put(heldKey, hold);
        try (RedlockContext.Scope scope = RedlockContext.open(hold.lease())) {
            return call.proceed();
        }
        finally {
            if (previous != null) {
                mine.put(heldKey, previous);
            }
            else {
                mine.remove(heldKey);
            }
        }
    }

    /** The annotated method's call; may throw anything it throws. */
    @FunctionalInterface
    interface Invocation {

        Object proceed() throws Throwable;

    }

}
