package io.github.redlock.core;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases of one {@link Redlock} not released yet (they may have expired meanwhile), and whether the lock
 * was closed. Leases whose holders never released them are dropped once there are many.
 */
final class HeldLeases {

    /** Size past which expired, never-released leases are dropped. */
    private static final int PURGE_THRESHOLD = 1024;

    private final Map<LeaseHandle, RedlockLease> leases = new ConcurrentHashMap<>();

    private volatile boolean closed;

    void add(RedlockLease lease) {
        this.leases.put(lease.handle(), lease);
        if (this.leases.size() > PURGE_THRESHOLD) {
            this.leases.values().removeIf((stale) -> !stale.isValid());
        }
    }

    void remove(LeaseHandle lease) {
        this.leases.remove(lease);
    }

    List<RedlockLease> snapshot() {
        return List.copyOf(this.leases.values());
    }

    boolean isClosed() {
        return this.closed;
    }

    /** Marks the lock closed; every lease still held is lost, as nothing extends or watches it any more. */
    void close() {
        this.closed = true;
        this.leases.values().forEach(RedlockLease::closed);
    }

}
