package io.github.redlock.core.internal.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * How the blocking API waits for the asynchronous algorithm: bounded, and never leaving behind a result that
 * nobody receives.
 */
public final class Futures {

    private Futures() {
    }

    /**
     * Waits for a future, at most {@code boundNanos}. On interruption or time-out the future is cancelled (so
     * that retries stop and a lease that arrives later is released) and {@code fallback} is returned, with the
     * thread's interrupt flag restored. A future that completed before it could be cancelled keeps its
     * result, which is returned: a lease acquired at the moment its caller gave up is then the caller's,
     * never an orphan.
     */
    public static <T> T await(CompletableFuture<T> future, long boundNanos, Supplier<T> fallback) {
        try {
            return future.get(boundNanos, TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return abandon(future, fallback);
        }
        catch (TimeoutException ex) {
            return abandon(future, fallback);
        }
        catch (ExecutionException ex) {
            throw rethrown(ex.getCause());
        }
    }

    private static <T> T abandon(CompletableFuture<T> future, Supplier<T> fallback) {
        if (future.cancel(false)) {
            return fallback.get();
        }
        try {
            return future.join(); // completed first: no waiting
        }
        catch (CompletionException ex) {
            throw rethrown(ex.getCause());
        }
    }

    private static RuntimeException rethrown(@Nullable Throwable cause) {
        return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
    }

}
