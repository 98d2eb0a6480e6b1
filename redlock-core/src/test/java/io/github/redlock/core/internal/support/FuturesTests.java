package io.github.redlock.core.internal.support;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.core.RedlockArgumentException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests {@link Futures#await}: a bounded wait that cancels the future and returns the fallback on a time-out or an
 * interrupt (restoring the interrupt flag), keeps a result that arrived before the cancellation, and rethrows failures
 * unchecked.
 */
class FuturesTests {

    @Test
    void aCompletedFutureGivesItsResult() {
        assertThat(Futures.await(CompletableFuture.completedFuture("lease"), 0, () -> "fallback")).isEqualTo("lease");
    }

    @Test
    void aTimeOutCancelsTheFutureAndGivesTheFallback() {
        CompletableFuture<String> future = new CompletableFuture<>();
        assertThat(Futures.await(future, 0, () -> "fallback")).isEqualTo("fallback");
        assertThat(future).isCancelled();
    }

    @Test
    void anInterruptCancelsTheFutureGivesTheFallbackAndKeepsTheFlag() {
        CompletableFuture<String> future = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        try {
            assertThat(Futures.await(future, TimeUnit.HOURS.toNanos(1), () -> "fallback")).isEqualTo("fallback");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(future).isCancelled();
        }
        finally {
            Thread.interrupted();
        }
    }

    @Test
    void aResultThatArrivesBeforeTheCancellationIsKept() {
        CompletableFuture<String> future = new CompletingOnTimeout<>("lease");
        assertThat(Futures.await(future, 0, () -> "fallback")).isEqualTo("lease");
    }

    @Test
    void aFailureThatArrivesBeforeTheCancellationIsRethrown() {
        CompletingOnTimeout<String> future = new CompletingOnTimeout<>(null);
        future.failure = new IllegalArgumentException("refused");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> Futures.await(future, 0, () -> "fallback"))
                .withMessage("refused");
    }

    @Test
    void anUncheckedFailureIsRethrownAsItIs() {
        RedlockArgumentException failure = new RedlockArgumentException("key", "key must not be empty");
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Futures.await(CompletableFuture.failedFuture(failure), 0, () -> null)).isSameAs(failure);
    }

    @Test
    void aCheckedFailureIsRethrownWrapped() {
        IOException failure = new IOException("reset");
        assertThatIllegalStateException().isThrownBy(() -> Futures.await(CompletableFuture.failedFuture(failure), 0, () -> null))
                .withCause(failure);
    }

    /** A future that completes just as its timed wait gives up: the race between the time-out and the result. */
    static final class CompletingOnTimeout<T> extends CompletableFuture<T> {

        private final T value;

        RuntimeException failure;

        CompletingOnTimeout(T value) {
            this.value = value;
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws TimeoutException {
            if (this.failure != null) {
                completeExceptionally(this.failure);
            }
            else {
                complete(this.value);
            }
            throw new TimeoutException();
        }

    }

}
