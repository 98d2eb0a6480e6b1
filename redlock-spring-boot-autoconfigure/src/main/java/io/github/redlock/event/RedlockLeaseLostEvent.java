package io.github.redlock.event;

import io.github.redlock.core.RedlockLease;

import org.springframework.context.ApplicationEvent;

/**
 * Published for every lease of the application's {@code Redlock} that was lost before its release (an
 * extension was refused by a majority, an automatic extension failed, its validity ran out while held, or the
 * lock was closed), whether it was taken by {@code @Redlocked}, a lock registry or the core API. Published
 * on a thread of its own after {@link RedlockLease#lost()} completed, so a listener never delays the lock;
 * the work the lease protected may still be running, and another client may hold the lock by now.
 */
public class RedlockLeaseLostEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient RedlockLease lease;

    private final String reason;

    /**
     * Creates the event.
     * @param lease the lost lease
     * @param reason why it was lost
     */
    public RedlockLeaseLostEvent(RedlockLease lease, String reason) {
        super(lease);
        this.lease = lease;
        this.reason = reason;
    }

    /**
     * Returns the lost lease.
     * @return the lease (its key, keys, token and fencing token)
     */
    public RedlockLease getLease() {
        return this.lease;
    }

    /**
     * Returns the lease's key, as {@link RedlockLease#key()}.
     * @return the key
     */
    public String getKey() {
        return this.lease.key();
    }

    /**
     * Returns why the lease was lost.
     * @return the reason, as {@link RedlockLease#lostReason()} says
     */
    public String getReason() {
        return this.reason;
    }

}
