package io.github.redlock.core.internal.script;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * Where a Redis Cluster node stores a lock's keys. Every script's keys must be in one hash slot there, so the
 * companion keys of a lock (its key, the byte {@code 0xFF}, a part's name: see {@link LockType}) are placed in the
 * slot of the lock's own key with a hash tag: {@code {K}}, the byte {@code 0xFF}, the part's name, where {@code K}
 * is the lock's key, unless {@code K} already has a hash tag (then every key that starts with {@code K} is in its
 * slot as it is). The exclusive key itself is never changed: other Redlock clients lock it under the same name. A
 * key that holds {@code '}'} but no hash tag of its own cannot be placed so ({@code {K}} would end the tag early):
 * such keys are refused on a lock with cluster nodes. Standalone and Sentinel nodes keep the layout without tags.
 * <p>
 * Fencing: a standalone node keeps one counter for all locks, which a cluster node cannot (it would be in one slot).
 * There each lock has its own, the lock's key, {@code 0xFF}, {@code fence}, placed in the lock's slot like the other
 * parts: a script given the node-wide counter beside a lock's keys is given the lock's counter instead. The scripts
 * keep a lock's counter for 10 minutes after its last raise and never answer it below the node's clock in
 * microseconds ({@code fence-prelude.lua}): one that expired, was lost in a restart or set back by a failover answers
 * from the clock.
 */
public final class ClusterKeys {

    private static final byte[] NODE_COUNTER = part("fencing-counter");

    private static final byte[] LOCK_COUNTER = part("fence");

    private ClusterKeys() {
    }

    private static byte[] part(String name) {
        byte[] part = new byte[name.length() + 1];
        part[0] = LockType.PART_SEPARATOR;
        System.arraycopy(name.getBytes(StandardCharsets.US_ASCII), 0, part, 1, name.length());
        return part;
    }

    /**
     * The key as a cluster node stores it: a companion key tagged into its lock key's slot, any other key unchanged.
     * @param key the key as the lock names it
     * @return the key on a cluster node
     */
    public static byte[] place(byte[] key) {
        int separator = indexOfSeparator(key);
        if (separator < 0 || hasTag(key, separator)) {
            return key;
        }
        byte[] placed = new byte[key.length + 2];
        placed[0] = '{';
        System.arraycopy(key, 0, placed, 1, separator);
        placed[separator + 1] = '}';
        System.arraycopy(key, separator, placed, separator + 2, key.length - separator);
        return placed;
    }

    /**
     * The keys as a cluster node stores them ({@link #place(byte[])}), in a new array where one changed.
     * @param keys the keys as the lock names them
     * @return the keys on a cluster node
     */
    public static byte[][] place(byte[][] keys) {
        byte[][] placed = keys;
        for (int i = 0; i < keys.length; i++) {
            byte[] key = (i > 0 && isNodeCounter(keys[i])) ? place(lockCounter(keys[0])) : place(keys[i]);
            if (key != keys[i]) {
                if (placed == keys) {
                    placed = keys.clone();
                }
                placed[i] = key;
            }
        }
        return placed;
    }

    /**
     * Why a lock's key cannot be placed on cluster nodes, or null when it can.
     * @param redisKey the lock's key with the key prefix
     * @return the reason, or null
     */
    public static @Nullable String unplaceable(String redisKey) {
        byte[] key = redisKey.getBytes(StandardCharsets.UTF_8);
        if (redisKey.indexOf('}') < 0 || hasTag(key, key.length)) {
            return null;
        }
        return "'" + redisKey + "' holds '}' but no hash tag ({…} around at least one character), so its companion keys cannot be "
                + "placed in its hash slot on a Redis Cluster node; leave '}' out of lock names, or give the name a hash tag";
    }

    /**
     * Whether a key is the node-wide fencing counter (its part's name is {@code fencing-counter}): a script that raises
     * it beside a lock's keys raises the lock's own counter on a cluster node, which cannot keep one counter in every
     * slot.
     */
    private static boolean isNodeCounter(byte[] key) {
        int length = NODE_COUNTER.length;
        if (key.length < length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (key[key.length - length + i] != NODE_COUNTER[i]) {
                return false;
            }
        }
        return true;
    }

    /** A lock's own fencing counter: the lock's key (before any part's name), the byte 0xFF, {@code fence}. */
    private static byte[] lockCounter(byte[] lockKey) {
        int separator = indexOfSeparator(lockKey);
        int length = (separator < 0) ? lockKey.length : separator;
        byte[] counter = new byte[length + LOCK_COUNTER.length];
        System.arraycopy(lockKey, 0, counter, 0, length);
        System.arraycopy(LOCK_COUNTER, 0, counter, length, LOCK_COUNTER.length);
        return counter;
    }

    /** Whether the first {@code end} bytes hold a hash tag: a '{', then a '}' after at least one other byte. */
    private static boolean hasTag(byte[] key, int end) {
        for (int open = 0; open < end; open++) {
            if (key[open] == '{') {
                for (int close = open + 1; close < end; close++) {
                    if (key[close] == '}') {
                        return close > open + 1;
                    }
                }
                return false;
            }
        }
        return false;
    }

    private static int indexOfSeparator(byte[] key) {
        for (int i = 0; i < key.length; i++) {
            if (key[i] == LockType.PART_SEPARATOR) {
                return i;
            }
        }
        return -1;
    }

}
