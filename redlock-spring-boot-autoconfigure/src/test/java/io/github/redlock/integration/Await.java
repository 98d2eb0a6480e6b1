package io.github.redlock.integration;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Polls a condition every 10 ms for at most 15 s, failing with what was awaited. */
final class Await {

    private Await() {
    }

    static void until(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what + " within 15 s").isNegative();
            Thread.sleep(10);
        }
    }

}
