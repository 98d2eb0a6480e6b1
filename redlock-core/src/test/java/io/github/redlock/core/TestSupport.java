package io.github.redlock.core;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import io.github.redlock.test.Poll;

final class TestSupport {

    /** Whether the long soak and fault variants run ({@code -Predlock-soak}). */
    static final boolean SOAK = Boolean.getBoolean("redlock.soak");

    private TestSupport() {
    }

    /** Polls a condition until it holds, failing after {@code timeout}. */
    static void awaitTrue(Duration timeout, BooleanSupplier condition) {
        Poll.until(timeout, condition, () -> "Condition not met within " + timeout);
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * A builder whose nodes may take two seconds to answer: for tests about anything but node timeouts, so that
     * a loaded machine's slow answers (the default is 50 ms) are not taken for failed nodes.
     */
    static Redlock.Builder patientBuilder() {
        return Redlock.builder().nodeTimeout(Duration.ofSeconds(2));
    }

}
