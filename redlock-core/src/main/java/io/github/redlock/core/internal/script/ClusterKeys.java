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
 */
public final class ClusterKeys {

    private ClusterKeys() {
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
            byte[] key = place(keys[i]);
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
