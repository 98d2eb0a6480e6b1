package io.github.redlock.core.internal.script;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * The kinds of lock and the Redis keys and scripts of each. The exclusive lock is one string key,
 * {@code <prefix><key>}, set with {@code SET NX PX} to the token: the layout of other Redlock clients, which
 * therefore exclude this one on the same keys. A read-write lock is a key space of its own, apart from the
 * exclusive lock of the same name: {@code <prefix><key>}, then the byte {@code 0xFF}, then the part's name —
 * {@code writer} (the writer's key), {@code readers} (a sorted set of reader tokens scored by expiry),
 * {@code queued-writers} and {@code queued-readers} (refused writers and readers by arrival) and
 * {@code queue-expiry} (the expiry of each queue entry). Beside an exclusive key, {@code <prefix><key>}, the byte
 * {@code 0xFF}, {@code waiting} is a hash of the other clients that were refused it recently and until when they
 * want it (see {@code handoff.lua}). Keys are UTF-8, which never contains the byte
 * {@code 0xFF}, so no user key, whatever its text, names a part of a read-write lock, and no read-write lock
 * shares a key with an exclusive lock. With fencing on, each node also keeps one fencing counter for all
 * locks, {@code <prefix>}, the byte {@code 0xFF}, then {@code fencing-counter} (see {@code Fencing}).
 */
public enum LockType {

    /** The classic Redlock: one holder. */
    EXCLUSIVE("set"),

    /**
     * One holder of several exclusive keys at once ({@link #multiKeys}): each key as the exclusive lock's, all
     * set or none on each node, so it excludes and is excluded by the exclusive lock of each of its names.
     */
    MULTI("acquire-multi"),

    /** Shared with other readers; excluded by a writer holding or waiting. */
    READ("acquire-read"),

    /** One holder, excluded by readers and other writers. */
    WRITE("acquire-write");

    /** Separates a read-write lock's key from its parts' names: a byte that UTF-8 never produces. */
    public static final byte PART_SEPARATOR = (byte) 0xFF;

    private final String command;

    LockType(String command) {
        this.command = command;
    }

    /** The acquisition command's name for the observer. */
    public String command() {
        return this.command;
    }

    /**
     * The Redis keys of a lock of this type, and which of them each step uses.
     * @param counterKey the nodes' fencing counter, or null when fencing is off; a read lock is never fenced
     */
    public Keys keys(String redisKey, byte @Nullable [] counterKey) {
        if (this == MULTI) {
            throw new IllegalStateException("a lock on several keys is named by multiKeys");
        }
        if (this == EXCLUSIVE) {
            byte[] lock = redisKey.getBytes(StandardCharsets.UTF_8);
            byte[][] key = { lock };
            byte[][] waiting = waiting(key);
            byte[][] published = { lock, waiting[0] };
            if (counterKey != null) {
                byte[][] fenced = { lock, counterKey };
                return new Keys(fenced, key, published, key, key, fenced, null, waiting, channel(lock));
            }
            return new Keys(key, key, published, key, key, null, null, waiting, channel(lock));
        }
        byte[] base = redisKey.getBytes(StandardCharsets.UTF_8);
        byte[] writer = part(base, "writer");
        byte[] readers = part(base, "readers");
        byte[] queuedWriters = part(base, "queued-writers");
        byte[] queuedReaders = part(base, "queued-readers");
        byte[] queueExpiry = part(base, "queue-expiry");
        byte[][] all = { writer, readers, queuedWriters, queuedReaders, queueExpiry };
        if (this == READ) {
            // Its release wakes queued writers only: no reader waits for another reader.
            return new Keys(all, new byte[][] { readers, queuedReaders, queueExpiry }, new byte[][] { readers, queuedReaders, queueExpiry, queuedWriters },
                    new byte[][] { readers }, new byte[][] { readers }, null, null, null, channel(base));
        }
        byte[][] release = { writer, queuedWriters, queueExpiry };
        byte[][] published = { writer, queuedWriters, queueExpiry, queuedReaders };
        if (counterKey != null) {
            byte[][] fencedAll = { writer, readers, queuedWriters, queuedReaders, queueExpiry, counterKey };
            return new Keys(fencedAll, release, published, new byte[][] { writer }, new byte[][] { writer }, new byte[][] { writer, counterKey },
                    null, null, channel(base));
        }
        return new Keys(all, release, published, new byte[][] { writer }, new byte[][] { writer }, null, null, null, channel(base));
    }

    /**
     * The Redis keys of a {@link #MULTI} lock: the exclusive keys of several names at once.
     * @param names the keys as the caller named them, in the order of {@code redisKeys}
     * @param redisKeys the keys, distinct, in the order every script takes them (sorted)
     * @param counterKey the nodes' fencing counter, or null when fencing is off
     */
    public static Keys multiKeys(java.util.List<String> names, java.util.List<String> redisKeys, byte @Nullable [] counterKey) {
        int size = redisKeys.size();
        byte[][] locks = new byte[size][];
        byte[][] channels = new byte[size][];
        for (int i = 0; i < size; i++) {
            locks[i] = redisKeys.get(i).getBytes(StandardCharsets.UTF_8);
            channels[i] = channel(locks[i]);
        }
        byte[][] waiting = waiting(locks);
        byte[][] published = java.util.Arrays.copyOf(locks, 2 * size);
        System.arraycopy(waiting, 0, published, size, size);
        if (counterKey != null) {
            byte[][] fenced = java.util.Arrays.copyOf(locks, size + 1);
            fenced[size] = counterKey;
            return new Keys(fenced, locks, published, locks, locks, new byte[][] { locks[0], counterKey }, names, waiting, channels);
        }
        return new Keys(locks, locks, published, locks, locks, null, names, waiting, channels);
    }

    /** The hash of who waits for each of the exclusive keys: the key, the byte 0xFF, {@code waiting}. */
    private static byte[][] waiting(byte[][] locks) {
        byte[][] waiting = new byte[locks.length][];
        for (int i = 0; i < locks.length; i++) {
            waiting[i] = part(locks[i], "waiting");
        }
        return waiting;
    }

    /**
     * The channel on which the lock's releases are published: its key, the byte 0xFF, {@code released}; the
     * exclusive lock and the read-write lock of one name share it (a waiter on either retries on it).
     */
    private static byte[] channel(byte[] base) {
        return part(base, "released");
    }

    /** The key of one part of a read-write lock: the lock's key, the separator byte 0xFF, the part's name. */
    private static byte[] part(byte[] base, String name) {
        byte[] key = new byte[base.length + 1 + name.length()];
        System.arraycopy(base, 0, key, 0, base.length);
        key[base.length] = PART_SEPARATOR;
        System.arraycopy(name.getBytes(StandardCharsets.US_ASCII), 0, key, base.length + 1, name.length());
        return key;
    }

    /**
     * The script that acquires a lock of this type on one node; none for the unfenced exclusive lock of a caller
     * that does not wait (SET NX PX).
     * @param fenced whether the keys include the fencing counter
     * @param waiting whether the caller will try again when refused (then a refusal says when the key expires)
     */
    public @Nullable LuaScript acquireScript(boolean fenced, boolean waiting) {
        return switch (this) {
            case EXCLUSIVE -> fenced ? LuaScript.ACQUIRE_FENCED : waiting ? LuaScript.ACQUIRE_EXCLUSIVE : null;
            case MULTI -> fenced ? LuaScript.ACQUIRE_MULTI_FENCED : LuaScript.ACQUIRE_MULTI;
            case READ -> LuaScript.ACQUIRE_READ;
            case WRITE -> LuaScript.ACQUIRE_WRITE;
        };
    }

    /** The script that releases a lease of this type (and cleans up after a final failed attempt). */
    public LuaScript releaseScript() {
        return switch (this) {
            case EXCLUSIVE -> LuaScript.RELEASE;
            case MULTI -> LuaScript.RELEASE_MULTI;
            case READ -> LuaScript.RELEASE_READ;
            case WRITE -> LuaScript.RELEASE_WRITE;
        };
    }

    /**
     * The script that cleans up after a failed attempt that will be retried: it deletes what the attempt
     * may have set but keeps the acquirer's place in the queue (the release scripts given only the first key).
     */
    public LuaScript retryCleanupScript() {
        return (this == WRITE) ? LuaScript.RELEASE : releaseScript();
    }

    /**
     * Whether an acquisition keeps one token for all its attempts: a reader's or writer's token is also its place in
     * the nodes' queue, which must survive from one attempt to the next. The exclusive lock, on one key or several,
     * has no queue and draws a token per attempt, so that a failed attempt's clean-up, however late it arrives,
     * deletes nothing of a later attempt's.
     */
    public boolean keepsTokenAcrossAttempts() {
        return this == READ || this == WRITE;
    }

    /** The script that extends a lease of this type. */
    public LuaScript extendScript() {
        return switch (this) {
            case READ -> LuaScript.EXTEND_READ;
            case MULTI -> LuaScript.EXTEND_MULTI;
            case EXCLUSIVE, WRITE -> LuaScript.EXTEND;
        };
    }

    /**
     * The keys of one lock.
     * @param acquire the acquisition's keys (the exclusive key, or the read-write lock's five)
     * @param release the keys of a release that publishes nothing (a retry's clean-up, a revocation's)
     * @param publishedRelease the keys of a release that publishes ({@link #releaseArgs}): the release's, then what
     * says whether another client waits for the lock there (who waits for each exclusive key; the queue of the read-write
     * lock's other side), without which the release scripts publish nothing
     * @param extend the extension's keys
     * @param retryCleanup the keys of the clean-up before a retry, or null when it is the release's
     * @param fence the key that holds the token and the fencing counter, for the token's confirmation; null
     * when the lock is not fenced
     * @param names the keys of a {@link #MULTI} lock as the caller named them, sorted; null for the other types
     * @param waiting the hash of who waits for each exclusive key, in the order of {@code release}; null for a
     * read-write lock
     * @param channels where releases of the lock are published: one channel, or one per key of a {@link #MULTI}
     * lock (its release publishes on the channel of each key, as a single key's release would)
     */
    public record Keys(byte[][] acquire, byte[][] release, byte[][] publishedRelease, byte[][] extend, byte @Nullable [][] retryCleanup, byte @Nullable [][] fence,
            java.util.@Nullable List<String> names, byte @Nullable [][] waiting, byte[]... channels) {

        /** The keys of {@code cleanup.lua}: the exclusive keys, then who waits for each; null for a read-write lock. */
        public byte @Nullable [][] cleanupMarking() {
            return (this.waiting != null) ? this.publishedRelease : null;
        }

        /** The keys of {@code handoff.lua}: the exclusive key and who waits for it. */
        public byte[][] handoff() {
            byte[][] waiting = java.util.Objects.requireNonNull(this.waiting, "a read-write lock is never handed over");
            return new byte[][] { this.release[0], waiting[0] };
        }

        /**
         * The keys of the clean-up after a failed attempt at a read-write lock.
         * @param quiet whether it publishes nothing (a retry's, given only the token); else it is the release's, which
         * publishes where someone waits
         */
        public byte[][] cleanup(boolean quiet) {
            if (!quiet) {
                return this.publishedRelease;
            }
            return (this.retryCleanup != null) ? this.retryCleanup : this.release;
        }

        /** The arguments of a release that publishes: the token, then the channels, one per key released. */
        public byte[][] releaseArgs(byte[] token) {
            byte[][] args = new byte[1 + this.channels.length][];
            args[0] = token;
            System.arraycopy(this.channels, 0, args, 1, this.channels.length);
            return args;
        }

    }

}
