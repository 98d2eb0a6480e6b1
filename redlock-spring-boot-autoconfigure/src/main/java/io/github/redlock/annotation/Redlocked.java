package io.github.redlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method only while holding a Redlock over the configured Redis masters, so that one caller at a
 * time, across every instance of the application, runs it for a given key.
 *
 * <pre>{@code
 * @Redlocked(key = "order:#{#order.id}", ttl = "10s", waitTime = "2s")
 * public Receipt pay(Order order) { … }
 *
 * @Scheduled(cron = "0 0 2 * * *")
 * @Redlocked(key = "nightly-settlement", ttl = "30m", onFailure = OnFailure.SKIP)
 * public void settle() { … }
 * }</pre>
 *
 * The lock is released when the method returns or throws; for a method returning a
 * {@code CompletionStage}, a Reactor {@code Mono} or {@code Flux}, when the asynchronous result completes
 * (a {@code Mono} or {@code Flux} acquires it when subscribed). Nested calls on the same thread for the
 * same key are re-entrant. The method must be called through the Spring proxy (not from its own class).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Redlocked {

    /**
     * The lock's key: literal text with {@code #{…}} SpEL parts evaluated against the method's arguments (by
     * name, or {@code #p0} / {@code #a0}), {@code #root.method}, {@code #root.target} and beans
     * ({@code @name}); {@code ${…}} placeholders are resolved first. A part that evaluates to null, or an
     * empty key, is an error and the method does not run. The template as written also names the lock in
     * metrics.
     * @return the key template, e.g. {@code "order:#{#order.id}"}
     */
    String key();

    /**
     * How long the nodes keep the lock, in Spring Boot's duration format ({@code 500ms}, {@code 10s},
     * {@code PT10S}); placeholders allowed. Empty for {@code redlock.default-ttl}.
     * @return the time to live
     */
    String ttl() default "";

    /**
     * How long to keep trying to acquire the lock, in the same format; {@code 0s} for a single attempt.
     * Empty for {@code redlock.default-wait-time}.
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * What to do when the lock could not be acquired within the wait time.
     * @return {@link OnFailure#THROW} (the default) or {@link OnFailure#SKIP}
     */
    OnFailure onFailure() default OnFailure.THROW;

}
