package io.github.redlock.core.internal.support;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import org.jspecify.annotations.Nullable;

/**
 * Calls an application's {@link RedlockObserver} so that its failures never reach the algorithm: an observer
 * is called on I/O threads in the middle of quorum decisions, and an exception there would stall the
 * decision or leak a lease. Failures are logged, at most once a minute, and otherwise ignored.
 */
public final class GuardedObserver implements RedlockObserver {

    private static final System.Logger logger = System.getLogger(GuardedObserver.class.getName());

    private final RedlockObserver delegate;

    private final OncePerMinute failures = new OncePerMinute(logger);

    private GuardedObserver(RedlockObserver delegate) {
        this.delegate = delegate;
    }

    /** Wraps an observer; null stays null (no observer). */
    public static @Nullable RedlockObserver of(@Nullable RedlockObserver observer) {
        return (observer == null || observer instanceof GuardedObserver) ? observer : new GuardedObserver(observer);
    }

    @Override
    public void nodeCommand(String node, String command, String outcome, long nanos) {
        try {
            this.delegate.nodeCommand(node, command, outcome, nanos);
        }
        catch (RuntimeException ex) {
            failed("nodeCommand", ex);
        }
    }

    @Override
    public void released(boolean released, long nanos) {
        try {
            this.delegate.released(released, nanos);
        }
        catch (RuntimeException ex) {
            failed("released", ex);
        }
    }

    @Override
    public void extended(boolean extended, long nanos) {
        try {
            this.delegate.extended(extended, nanos);
        }
        catch (RuntimeException ex) {
            failed("extended", ex);
        }
    }

    @Override
    public void leaseLost(RedlockLease lease, String reason) {
        try {
            this.delegate.leaseLost(lease, reason);
        }
        catch (RuntimeException ex) {
            failed("leaseLost", ex);
        }
    }

    private void failed(String method, RuntimeException ex) {
        this.failures.warn(() -> "RedlockObserver " + this.delegate.getClass().getName() + "." + method
                + " threw; its failures are ignored (and logged at most once a minute) so that locking goes on", ex);
    }

}
