package io.github.redlock.fencing;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * A write refused by the storage because its fencing token is below the resource's fence: a later holder of the lock
 * wrote already, so this holder's lease ran out (it paused, or its lock was lost) and its write must not land. Not
 * transient: the same write with the same token fails again; the holder has to take the lock anew.
 */
public class StaleFencingTokenException extends NonTransientDataAccessException {

    private static final long serialVersionUID = 1L;

    private final String resource;

    private final long token;

    private final long fence;

    private final boolean leaseExpired;

    /**
     * Creates the exception.
     * @param resource what the write was to (a lock's name, or the storage key)
     * @param token the writer's fencing token
     * @param fence the resource's fence, which a later holder's write raised above {@code token}
     */
    public StaleFencingTokenException(String resource, long token, long fence) {
        this(resource, token, fence, false);
    }

    /**
     * Creates the exception, knowing whether the writer's lease had run out when its write was refused: then the write
     * is refused even where no later holder raised the fence yet ({@code fence <= token}), as one may hold the lock now.
     * @param resource what the write was to (a lock's name, or the storage key)
     * @param token the writer's fencing token
     * @param fence the resource's fence when the write was refused
     * @param leaseExpired whether the writer's lease had run out before the write
     */
    public StaleFencingTokenException(String resource, long token, long fence, boolean leaseExpired) {
        super(message(resource, token, fence, leaseExpired));
        this.resource = resource;
        this.token = token;
        this.fence = fence;
        this.leaseExpired = leaseExpired;
    }

    private static String message(String resource, long token, long fence, boolean leaseExpired) {
        if (fence > token) {
            return "Refused a stale write to '" + resource + "': its fencing token " + token + " is below the fence " + fence
                    + " that a later holder of the lock wrote; this holder's lease ran out (it paused or lost its lock), so its "
                    + "write must not land." + (leaseExpired ? " The lease had run out before the write." : "")
                    + " Take the lock again before writing.";
        }
        return "Refused the write to '" + resource + "' of fencing token " + token + ": the lease of its lock ran out before the"
                + " write (it paused or lost its lock), so another caller may hold the lock now, though none raised the fence "
                + "yet. Take the lock again before writing; for work of unknown length, give it a longer ttl or autoExtend = true.";
    }

    /**
     * Returns what the write was to.
     * @return the resource (a lock's name, or the storage key)
     */
    public String getResource() {
        return this.resource;
    }

    /**
     * Returns the refused writer's fencing token.
     * @return the token
     */
    public long getToken() {
        return this.token;
    }

    /**
     * Returns the resource's fence when the write was refused: the token of a later holder's write.
     * @return the fence, above {@link #getToken()}; when the write was refused because {@link #isLeaseExpired() the
     * lease had run out} before any later holder wrote, the token itself
     */
    public long getFence() {
        return this.fence;
    }

    /**
     * Returns whether the writer's lease was known to have run out before the write (a {@code @Redlocked(fenced = true)}
     * method's commit, while its lock was still the method's to hold).
     * @return whether the lease had run out; false when that was not known
     */
    public boolean isLeaseExpired() {
        return this.leaseExpired;
    }

}
