package io.github.redlock.core.internal.support;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A warning logged at most once a minute: for failures of an application's callbacks (an observer, an
 * observation handler), which would otherwise repeat on every lock operation.
 */
public final class OncePerMinute {

    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final System.Logger logger;

    /** When a warning was last logged; 0 before the first. */
    private final AtomicLong loggedAt = new AtomicLong();

    public OncePerMinute(System.Logger logger) {
        this.logger = logger;
    }

    /** Logs the warning unless one was logged less than a minute ago. */
    public void warn(Supplier<String> message, Throwable failure) {
        long now = System.nanoTime();
        long last = this.loggedAt.get();
        if ((last == 0 || now - last >= INTERVAL_NANOS) && this.loggedAt.compareAndSet(last, (now == 0) ? 1 : now)) {
            this.logger.log(System.Logger.Level.WARNING, message.get(), failure);
        }
    }

}
