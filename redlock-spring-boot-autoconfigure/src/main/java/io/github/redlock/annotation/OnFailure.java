package io.github.redlock.annotation;

/**
 * What a {@link Redlocked @Redlocked} method does when the lock cannot be acquired within its wait time.
 */
public enum OnFailure {

    /**
     * Throw {@link io.github.redlock.core.RedlockAcquisitionException}, naming the key, the quorum and the
     * nodes that did not agree. The method is not run.
     */
    THROW,

    /**
     * Do not run the method and return {@code null}, an empty {@code Optional}, an empty {@code Mono} or
     * {@code Flux}, or a completed stage of {@code null} — for scheduled jobs that only one instance should run.
     * Not allowed on methods returning a primitive.
     */
    SKIP

}
