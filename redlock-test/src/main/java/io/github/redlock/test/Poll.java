package io.github.redlock.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits in tests for what happens on other threads (replies on I/O threads, expiries, restarts), by polling every
 * 10 ms with a bound: the one polling loop of the project's tests.
 */
public final class Poll {

    private static final long INTERVAL_MILLIS = 10;

    private Poll() {
    }

    /**
     * Polls until the condition holds.
     * @param bound how long to wait at most
     * @param condition what to wait for
     * @param failure the message of the failure when the bound passes (or the thread is interrupted)
     * @throws AssertionError with the message, if the condition did not hold within the bound
     */
    public static void until(Duration bound, BooleanSupplier condition, Supplier<String> failure) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(failure.get());
            }
            pause(failure);
        }
    }

    /**
     * Runs an assertion until it passes.
     * @param bound how long to retry at most
     * @param assertion throws an {@link AssertionError} until what it checks is true
     * @throws AssertionError the assertion's last failure, if it did not pass within the bound
     */
    public static void untilPasses(Duration bound, Runnable assertion) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            try {
                assertion.run();
                return;
            }
            catch (AssertionError ex) {
                if (System.nanoTime() - deadline > 0) {
                    throw ex;
                }
                pause(ex::getMessage);
            }
        }
    }

    /**
     * Polls every {@code interval} until the condition holds or the bound passes: the harness's own waits, which
     * fail with an {@link IllegalStateException} that says what they waited for.
     * @return whether the condition held within the bound
     * @throws IllegalStateException when the thread is interrupted
     */
    static boolean holdsWithin(Duration bound, Duration interval, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(interval.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for redis-server processes", ex);
            }
        }
        return true;
    }

    private static void pause(Supplier<String> waitingFor) {
        try {
            Thread.sleep(INTERVAL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting: " + waitingFor.get(), ex);
        }
    }

}
