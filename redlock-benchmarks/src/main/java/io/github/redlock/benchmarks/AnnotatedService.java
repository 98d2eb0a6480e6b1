package io.github.redlock.benchmarks;

import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The {@code annotated} benchmark's method: an empty body under {@code @Redlocked}, with a key evaluated
 * from the argument as applications write them; a contended call skips, as a scheduled job would.
 */
public class AnnotatedService {

    /**
     * Locks {@code bench:<key>}, does nothing, unlocks.
     * @param key the per-thread key
     */
    @Redlocked(key = "bench:#{#key}", ttl = "10s", onFailure = OnFailure.SKIP)
    public void locked(String key) {
    }

    /**
     * Does nothing under an advice that only proceeds ({@code bridgeJava}).
     * @param key the per-thread key
     */
    @PassThrough
    public void passThrough(String key) {
    }

    /**
     * The minimal Spring Boot application around it and its Kotlin twin, {@link SuspendService}; without a DataSource,
     * which Boot would otherwise try to make (and fail to, having no URL) from the JDBC classes that
     * {@link FencedTransactionService} brings.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
    public static class Application {

        @Bean
        AnnotatedService annotatedService() {
            return new AnnotatedService();
        }

        @Bean
        SuspendService suspendService() {
            return new SuspendService();
        }

        @Bean
        PassThrough.Advice passThroughAdvice() {
            return new PassThrough.Advice();
        }

    }

}
