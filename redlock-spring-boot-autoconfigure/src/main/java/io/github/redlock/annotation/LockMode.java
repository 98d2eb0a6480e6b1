package io.github.redlock.annotation;

/**
 * Which lock a {@link Redlocked @Redlocked} method takes for its key.
 */
public enum LockMode {

    /** The classic Redlock: one caller at a time for the key. The default. */
    EXCLUSIVE,

    /**
     * The read lock of the key's read-write lock: any number of readers at once, none while a writer holds
     * the lock or waits for it since before they arrived.
     */
    READ,

    /**
     * The write lock of the key's read-write lock: one writer, and no reader, at a time. Waiting readers and
     * writers are served in the order they arrived: a waiting writer keeps readers arriving later out, and
     * readers waiting before a writer go first, so neither side starves the other. The read-write lock of a
     * key is separate from its {@link #EXCLUSIVE} lock: use {@code WRITE}, not {@code EXCLUSIVE}, beside
     * {@code READ}.
     */
    WRITE

}
