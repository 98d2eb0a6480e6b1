package io.github.redlock.fencing.web;

import java.util.OptionalLong;

import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP header that carries a lock holder's fencing token to a downstream service: {@value #NAME}, a decimal
 * {@code long} above 0 ({@link RedlockLease#fencingToken()}).
 */
public final class FencingTokenHeader {

    /** The header's name. */
    public static final String NAME = "Redlock-Fencing-Token";

    private FencingTokenHeader() {
    }

    /**
     * Returns the fencing token of a lease, if it has one: an exclusive or write lease of a {@code Redlock} with fencing
     * on. A read lease, or one without fencing, has none, and no header is sent for it.
     * @param lease the lease, or null
     * @return its token, or empty
     */
    public static OptionalLong tokenOf(@Nullable RedlockLease lease) {
        if (lease == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(lease.fencingToken());
        }
        catch (IllegalStateException ex) {
            return OptionalLong.empty(); // a read lease, or fencing off: no token to send
        }
    }

}
