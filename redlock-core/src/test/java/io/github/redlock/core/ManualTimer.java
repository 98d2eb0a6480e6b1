package io.github.redlock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * A Netty {@link Timer} that never fires by itself: a test fires its timeouts by hand, so that a node timeout
 * passes exactly when the test says, without waiting.
 */
public final class ManualTimer implements Timer {

    private final List<ManualTimeout> timeouts = new ArrayList<>();

    @Override
    public synchronized Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        ManualTimeout timeout = new ManualTimeout(task, unit.toNanos(delay));
        this.timeouts.add(timeout);
        return timeout;
    }

    @Override
    public Set<Timeout> stop() {
        return Set.of();
    }

    /** The timeouts armed so far, in order. */
    synchronized List<ManualTimeout> timeouts() {
        return List.copyOf(this.timeouts);
    }

    /** The only timeout armed so far. */
    public synchronized ManualTimeout single() {
        if (this.timeouts.size() != 1) {
            throw new IllegalStateException("expected one timeout, found " + this.timeouts.size());
        }
        return this.timeouts.get(0);
    }

    /** A timeout that a test fires with {@link #fire()}. */
    public final class ManualTimeout implements Timeout {

        private final TimerTask task;

        private final long delayNanos;

        private volatile boolean cancelled;

        private volatile boolean expired;

        ManualTimeout(TimerTask task, long delayNanos) {
            this.task = task;
            this.delayNanos = delayNanos;
        }

        public long delayNanos() {
            return this.delayNanos;
        }

        /** Runs the task now, as the timer thread would when the delay passed, unless the timeout was cancelled. */
        public void fire() throws Exception {
            if (!this.cancelled && !this.expired) {
                this.expired = true;
                this.task.run(this);
            }
        }

        @Override
        public Timer timer() {
            return ManualTimer.this;
        }

        @Override
        public TimerTask task() {
            return this.task;
        }

        @Override
        public boolean isExpired() {
            return this.expired;
        }

        @Override
        public boolean isCancelled() {
            return this.cancelled;
        }

        @Override
        public boolean cancel() {
            if (this.expired || this.cancelled) {
                return false;
            }
            this.cancelled = true;
            return true;
        }

    }

}
