package io.github.redlock.aop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.RedlockContext;
import org.jspecify.annotations.Nullable;

/**
 * The locks the current thread holds while it runs annotated methods, by key, so that a nested call for a key
 * the thread holds re-enters that lock instead of waiting for itself. Read-write locks are kept apart from
 * the exclusive locks of the same keys.
 * <p>
 * A Kotlin coroutine owns the locks its suspend calls took, not the threads it runs on: {@link CoroutineLocking}
 * {@link #install installs} the coroutine's locks as the thread's each time the coroutine resumes on a thread,
 * in place of the thread's own, and {@link #restore restores} the thread's own when it suspends there. Another
 * coroutine that runs on the same thread meanwhile sees none of them.
 */
final class ReentrantHolds {

    /** Marks the read-write locks apart from the exclusive locks of the same keys (no key starts with NUL). */
    private static final String READ_WRITE = "\u0000rw:";

    private final ThreadLocal<Map<String, HeldLock>> held = ThreadLocal.withInitial(HashMap::new);

    /** Marks a lock on several keys, recorded by its keys (sorted, distinct) joined by NUL. */
    private static final String SET = "\u0000set:";

    /**
     * How a lock of this mode on these keys is recorded: its key, or, for a lock on several keys, the set, then
     * each of its keys (holding the set holds each of them).
     */
    static List<String> heldKeys(LockMode mode, List<String> keys) {
        if (keys.size() == 1) {
            return List.of((mode == LockMode.EXCLUSIVE) ? keys.get(0) : READ_WRITE + keys.get(0));
        }
        List<String> held = new ArrayList<>(keys.size() + 1);
        held.add(SET + String.join("\u0000", keys));
        held.addAll(keys);
        return held;
    }

    /** The lock this thread holds for the key (the first of {@link #heldKeys}), or null. */
    @Nullable HeldLock current(List<String> heldKeys) {
        return this.held.get().get(heldKeys.get(0));
    }

    /**
     * One of the keys of a lock on several keys that this thread holds already through another lock, or null: a
     * lock on the set would wait for this thread itself.
     */
    @Nullable String heldElsewhere(List<String> heldKeys) {
        Map<String, HeldLock> mine = this.held.get();
        for (int i = 1; i < heldKeys.size(); i++) {
            if (mine.containsKey(heldKeys.get(i))) {
                return heldKeys.get(i);
            }
        }
        return null;
    }

    /**
     * Runs the call with {@code hold} recorded as this thread's lock of the key, and its lease as the
     * {@link RedlockContext#currentLease() current lease}, and restores what was recorded before when it returns
     * or throws. Runs on the thread that calls the method.
     */
    @Nullable Object proceedHolding(List<String> heldKeys, HeldLock hold, Invocation call) throws Throwable {
        Map<String, HeldLock> mine = this.held.get();
        HeldLock[] previous = new HeldLock[heldKeys.size()];
        for (int i = 0; i < previous.length; i++) {
            previous[i] = mine.put(heldKeys.get(i), hold);
        }
        try (RedlockContext.Scope scope = RedlockContext.open(hold.lease())) {
            return call.proceed();
        }
        finally {
            for (int i = 0; i < previous.length; i++) {
                if (previous[i] != null) {
                    mine.put(heldKeys.get(i), previous[i]);
                }
                else {
                    mine.remove(heldKeys.get(i));
                }
            }
        }
    }

    /** A copy of the locks this thread holds now, by the keys they are recorded under. */
    Map<String, HeldLock> snapshot() {
        return Map.copyOf(this.held.get());
    }

    /**
     * Makes {@code holds} this thread's locks, in place of those it had, until {@link #restore restored}.
     * @return the thread's locks before, to restore
     */
    Map<String, HeldLock> install(Map<String, HeldLock> holds) {
        Map<String, HeldLock> previous = this.held.get();
        this.held.set(new HashMap<>(holds)); // a copy of its own, which nested calls on the thread change and restore
        return previous;
    }

    /** Gives the thread back the locks it had before {@link #install}. */
    void restore(Map<String, HeldLock> previous) {
        this.held.set(previous);
    }

    /** The annotated method's call; may throw anything it throws. */
    @FunctionalInterface
    interface Invocation {

        @Nullable Object proceed() throws Throwable;

    }

}
