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

    /**
     * Creates the exception.
     * @param resource what the write was to (a lock's name, or the storage key)
     * @param token the writer's fencing token
     * @param fence the resource's fence, which a later holder's write raised above {@code token}
     */
    public StaleFencingTokenException(String resource, long token, long fence) {
        super("Refused a stale write to '" + resource + "': its fencing token " + token + " is below the fence " + fence
                + " that a later holder of the lock wrote; this holder's lease ran out (it paused or lost its lock), so its write"
                + " must not land. Take the lock again before writing.");
        this.resource = resource;
        this.token = token;
        this.fence = fence;
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
     * @return the fence, above {@link #getToken()}
     */
    public long getFence() {
        return this.fence;
    }

}
