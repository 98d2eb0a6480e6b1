package io.github.redlock.core.internal;

import java.util.List;
import java.util.TreeSet;

import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.internal.script.LockType;
import org.jspecify.annotations.Nullable;

/**
 * A lock as the caller named it, checked: a type and a key, or ({@link LockType#MULTI}) several keys, distinct and
 * sorted, with {@code key} the keys joined by commas.
 *
 * @param type the kind of lock
 * @param key the key, or the keys joined by commas
 * @param keys the keys of a lock on several keys, else null
 */
public record LockName(LockType type, String key, @Nullable List<String> keys) {

    /** The exclusive lock of {@code key}. */
    public static LockName exclusive(String key) {
        return new LockName(LockType.EXCLUSIVE, checkKey(key), null);
    }

    /** The read lock of {@code key}'s read-write lock. */
    public static LockName read(String key) {
        return new LockName(LockType.READ, checkKey(key), null);
    }

    /** The write lock of {@code key}'s read-write lock. */
    public static LockName write(String key) {
        return new LockName(LockType.WRITE, checkKey(key), null);
    }

    /** The exclusive lock on all the keys: checked, without duplicates, sorted (one key: the plain lock). */
    public static LockName allOf(List<String> keys) {
        if (keys == null || keys.isEmpty()) {
            throw new RedlockArgumentException("keys", "keys must name at least one key, was " + keys);
        }
        TreeSet<String> distinct = new TreeSet<>();
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            if (key == null || key.isBlank()) {
                throw new RedlockArgumentException("keys", "keys[" + i + "] must not be null or blank, was "
                        + (key == null ? "null" : "'" + key + "'") + " (keys " + keys + ")");
            }
            distinct.add(key);
        }
        if (distinct.size() == 1) {
            return exclusive(distinct.first());
        }
        List<String> sorted = List.copyOf(distinct);
        return new LockName(LockType.MULTI, String.join(",", sorted), sorted);
    }

    private static String checkKey(String key) {
        if (key == null || key.isBlank()) {
            throw new RedlockArgumentException("key", "key must not be null or blank, was " + (key == null ? "null" : "'" + key + "'"));
        }
        return key;
    }

}
