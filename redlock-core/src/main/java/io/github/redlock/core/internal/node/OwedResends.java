package io.github.redlock.core.internal.node;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.util.concurrent.EventExecutorGroup;

/**
 * Sends a node's owed releases and clean-ups ({@link OwedReleases}) again: all of them each time the node is back, and,
 * for one owed while it is connected (it refused for its queue, or was back meanwhile), shortly after, off the caller's
 * thread, with one resend pending per node however many releases are owed. One rejected again is owed again.
 */
final class OwedResends {

    private static final long SOON_MILLIS = 50;

    private final OwedReleases owed;

    private final ScriptSender scripts;

    private final NodeKind kind;

    private final EventExecutorGroup scheduler;

    private final AtomicBoolean pending = new AtomicBoolean();

    private volatile boolean closed;

    OwedResends(OwedReleases owed, ScriptSender scripts, NodeKind kind, EventExecutorGroup scheduler) {
        this.owed = owed;
        this.scripts = scripts;
        this.kind = kind;
        this.scheduler = scheduler;
    }

    /** Keeps a release that could not be sent, to send when the node is back (soon, if it is now). */
    void owe(OwedReleases.Release release) {
        if (!this.closed && this.owed.owe(release) && this.kind.mayResend() && this.pending.compareAndSet(false, true)) {
            this.scheduler.schedule(() -> {
                this.pending.set(false);
                resend();
            }, SOON_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the owed releases whose keys may still exist. */
    void resend() {
        this.owed.drain((release) -> this.scripts.send(release.script(), release.keys(), release.args(), (reply, failure) -> {
            if (ScriptSender.scriptReply(reply, failure).outcome() == NodeReply.Outcome.REJECTED) {
                owe(release);
            }
        }));
    }

    /** Owes nothing more, and forgets what is owed. */
    void close() {
        this.closed = true;
        this.owed.clear();
    }

}
