package io.github.redlock.core.internal.lease;

import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

/**
 * What the internal packages may do with a {@link RedlockLease} beyond its public API: create one for a grant, and read
 * or end its state. {@code RedlockLease} registers the one implementation when it is initialized (the "shared secrets"
 * pattern of the JDK), so that these operations need not be public methods of an API type.
 */
public abstract class LeaseAccess {

    private static volatile @Nullable LeaseAccess access;

    /**
     * Registers the implementation; called once, by {@code RedlockLease}'s static initializer.
     * @param implementation the implementation
     * @throws IllegalStateException if one was registered already
     */
    public static void register(LeaseAccess implementation) {
        if (access != null) {
            throw new IllegalStateException("LeaseAccess is registered by RedlockLease only, and once");
        }
        access = implementation;
    }

    /**
     * Returns the implementation, initializing {@code RedlockLease} first if no lease was used yet.
     * @return the implementation
     */
    public static LeaseAccess get() {
        LeaseAccess registered = access;
        if (registered == null) {
            initialize(RedlockLease.class);
            registered = access;
            if (registered == null) {
                throw new IllegalStateException("RedlockLease did not register its LeaseAccess");
            }
        }
        return registered;
    }

    private static void initialize(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        }
        catch (ClassNotFoundException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Creates the lease of a grant.
     * @param operations releases and extends it
     * @param handle its state on the nodes
     * @param key the key as the caller gave it
     * @param token the value stored on the nodes
     * @return the lease
     */
    public abstract RedlockLease create(LeaseOperations operations, LeaseHandle handle, String key, String token);

    /**
     * Returns the lease's state on the nodes.
     * @param lease the lease
     * @return its handle
     */
    public abstract LeaseHandle handle(RedlockLease lease);

    /**
     * Tells a lease that its {@code Redlock} was closed while it was held: nothing extends or watches it any more.
     * @param lease the lease
     */
    public abstract void closed(RedlockLease lease);

    /**
     * Returns whether the lease was released (or its release began) or lost.
     * @param lease the lease
     * @return whether it ended
     */
    public abstract boolean ended(RedlockLease lease);

    /**
     * Marks a lease of this instance lost at once, for the reason given: its lock was revoked through its own
     * {@code Redlock}, so the nodes no longer hold it. Stops its extension.
     * @param lease the lease
     * @param reason why, for the log and observers
     */
    public abstract void revoked(RedlockLease lease, String reason);

}
