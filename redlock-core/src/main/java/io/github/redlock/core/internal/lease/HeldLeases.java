package io.github.redlock.core.internal.lease;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.script.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The leases of one {@code Redlock} not released yet (they may have expired meanwhile), and whether the lock
 * was closed. Leases whose holders never released them are dropped once there are many. The newest exclusive
 * lease of each key is also found by its key ({@link #holderOf}), so that a caller of this JVM that would wait
 * for it can wait for its release instead of asking the nodes, which would refuse it while it is valid.
 */
public final class HeldLeases {

    /** Size past which expired, never-released leases are dropped. */
    private static final int PURGE_THRESHOLD = 1024;

    private final Map<LeaseHandle, RedlockLease> leases = new ConcurrentHashMap<>();

    /** The newest exclusive lease of each key (as the caller named it) among {@link #leases}. */
    private final Map<String, RedlockLease> exclusive = new ConcurrentHashMap<>();

    private volatile boolean closed;

    public void add(RedlockLease lease) {
        this.leases.put(Lease.of(lease).handle(), lease);
        if (Lease.of(lease).handle().type() == LockType.EXCLUSIVE) {
            this.exclusive.put(lease.key(), lease);
        }
        if (this.leases.size() > PURGE_THRESHOLD) {
            this.leases.values().removeIf((stale) -> !stale.isValid());
            this.exclusive.values().removeIf((stale) -> !stale.isValid());
        }
    }

    void remove(LeaseHandle lease) {
        RedlockLease removed = this.leases.remove(lease);
        if (removed != null && lease.type() == LockType.EXCLUSIVE) {
            this.exclusive.remove(removed.key(), removed);
        }
    }

    /**
     * The exclusive lease of a key that this lock holds, not released and still valid (a quorum of nodes holds its
     * key, so an attempt would be refused until its release or the end of its validity), or null.
     * @param key the key as the caller named it
     */
    public @Nullable RedlockLease holderOf(String key) {
        RedlockLease lease = this.exclusive.get(key);
        return (lease != null && !Lease.of(lease).ended() && lease.isValid()) ? lease : null;
    }

    public List<RedlockLease> snapshot() {
        return List.copyOf(this.leases.values());
    }

    boolean isClosed() {
        return this.closed;
    }

    /** Marks the lock closed; every lease still held is lost, as nothing extends or watches it any more. */
    public void close() {
        this.closed = true;
        this.leases.values().forEach((lease) -> Lease.of(lease).redlockClosed());
    }

}
