package io.github.redlock.core.internal.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.support.Durations;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * Watches one lease on the lock's shared timer, with one timer task at a time (no thread per lease):
 * <ul>
 * <li>while automatic extension runs, extends the lease each time half of its ttl remains, never past
 * {@code maxHold} after the acquisition, and skips an extension that would gain less than a quarter of the
 * ttl before it, so a lease gets about {@code maxHold / (ttl / 2) + 1} extensions when the nodes answer; a
 * failed extension is retried while a quarter of the ttl remains;</li>
 * <li>otherwise, or after {@code maxHold}, tells the holder when the validity runs out.</li>
 * </ul>
 * The holder learns of a loss through {@link Holder#lost(String)}, and stops the watch when it releases the lease.
 */
public final class LeaseWatch {

    /** The lease's side: whether it ended (released or lost), and its loss. */
    public interface Holder {

        /** Whether the lease was released or lost: nothing more to watch. */
        boolean ended();

        /** The lease is lost, for the reason given. */
        void lost(String reason);

    }

    public static final String MAJORITY_GONE = "a majority of nodes no longer hold its token (expired or taken), so it could not be extended";

    private static final VarHandle HOLD_DEADLINE;

    private static final VarHandle WATCH;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HOLD_DEADLINE = lookup.findVarHandle(LeaseWatch.class, "holdDeadlineNanos", long.class);
            WATCH = lookup.findVarHandle(LeaseWatch.class, "watch", Timeout.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final LeaseHandle lease;

    private final LeaseOperations operations;

    private final Holder holder;

    /** When automatic extension stops ({@link System#nanoTime()} based), or 0 when it is off. */
    @SuppressWarnings("unused") // through HOLD_DEADLINE
    private volatile long holdDeadlineNanos;

    private volatile @Nullable Duration maxHold;

    /** Whether the keys live (almost) until {@code maxHold}: no further extension would add anything. */
    private volatile boolean holdReached;

    /** The timer task of the next extension or validity check, or null. */
    @SuppressWarnings("unused") // through WATCH
    private volatile @Nullable Timeout watch;

    public LeaseWatch(LeaseHandle lease, LeaseOperations operations, Holder holder) {
        this.lease = lease;
        this.operations = operations;
        this.holder = holder;
    }

    /**
     * Starts the automatic extension until {@code maxHold} after the acquisition or, when it runs already,
     * moves its end later (never earlier).
     */
    public void extendUntil(Duration maxHold) {
        long deadline = this.lease.acquisition().startNanos() + Durations.saturatedNanos(maxHold);
        deadline = (deadline == 0) ? 1 : deadline; // 0 means "off"
        long current;
        do {
            current = this.holdDeadlineNanos;
            if (current != 0 && deadline - current <= 0) {
                return;
            }
        }
        while (!HOLD_DEADLINE.compareAndSet(this, current, deadline));
        this.maxHold = maxHold;
        this.holdReached = false;
        watchIn(nextExtensionDelay());
    }

    /** Tells the holder when the validity runs out, unless automatic extension watches already. */
    public void watchValidity() {
        if (this.holdDeadlineNanos == 0) {
            watchIn(this.lease.validLeft(System.nanoTime()));
            if (this.holdDeadlineNanos != 0) {
                watchIn(nextExtensionDelay()); // extension started meanwhile, and its task was just replaced
            }
        }
    }

    /** Cancels the pending extension or validity check; a running extension's result is ignored. */
    public void stop() {
        Timeout current = this.watch;
        if (current != null) {
            current.cancel();
        }
    }

    private void watchIn(long delayNanos) {
        if (this.holder.ended() || this.operations.isClosed()) {
            return;
        }
        Timeout previous = (Timeout) WATCH.getAndSet(this, this.operations.schedule((timeout) -> check(), delayNanos));
        if (previous != null) {
            previous.cancel(); // one watch per lease, e.g. when autoExtend follows lost()
        }
        if (this.holder.ended()) {
            stop(); // ended meanwhile: no timer survives its lease
        }
    }

    /** When the next extension is due: once half of the ttl remains. */
    private long nextExtensionDelay() {
        return this.lease.validLeft(System.nanoTime()) - TimeUnit.MILLISECONDS.toNanos(this.lease.ttlMillis()) / 2;
    }

    /** On the timer: extends the lease when automatic extension runs, else checks whether validity ran out. */
    private void check() {
        if (this.holder.ended()) {
            return;
        }
        long now = System.nanoTime();
        long holdDeadline = this.holdDeadlineNanos;
        long validLeft = this.lease.validLeft(now);
        if (holdDeadline != 0 && validLeft > 0) {
            long ttlNanos = TimeUnit.MILLISECONDS.toNanos(this.lease.ttlMillis());
            long holdLeft = holdDeadline - now;
            if (holdLeft - validLeft > ttlNanos / 4) {
                long ttl = Math.min(this.lease.ttlMillis(), TimeUnit.NANOSECONDS.toMillis(holdLeft));
                this.operations.extend(this.lease, ttl, Extension.AUTOMATIC).whenComplete((outcome, failure) -> afterExtension(
                        (failure != null) ? ExtendOutcome.NOT_EXTENDED : outcome));
                return;
            }
            this.holdReached = true;
        }
        if (validLeft > 0) {
            watchIn(validLeft); // extended by hand meanwhile, or at maxHold: check again when it runs out
            if (this.holdDeadlineNanos != holdDeadline) {
                // autoExtend moved the maximum hold later meanwhile, and its timer was just replaced
                this.holdReached = false;
                watchIn(nextExtensionDelay());
            }
            return;
        }
        this.holder.lost(this.holdReached ? "its validity ran out after the maximum hold of " + this.maxHold
                : "its validity ran out before it was released (ttl " + this.lease.ttlMillis() + " ms)");
    }

    private void afterExtension(ExtendOutcome outcome) {
        if (this.holder.ended()) {
            return;
        }
        if (outcome == ExtendOutcome.EXTENDED) {
            watchIn(nextExtensionDelay());
            return;
        }
        long validLeft = this.lease.validLeft(System.nanoTime());
        long quarter = TimeUnit.MILLISECONDS.toNanos(this.lease.ttlMillis()) / 4;
        if (outcome == ExtendOutcome.REFUSED) {
            this.holder.lost(MAJORITY_GONE);
        }
        else if (validLeft > quarter) {
            watchIn((validLeft - quarter) / 2); // no quorum in time: try again while a quarter remains
        }
        else {
            this.holder.lost("no quorum of nodes extended it in time");
        }
    }

}
