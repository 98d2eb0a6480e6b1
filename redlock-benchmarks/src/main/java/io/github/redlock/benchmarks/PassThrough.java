package io.github.redlock.benchmarks;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/**
 * Marks a method for {@link Advice}, which only proceeds: the {@code bridgeJava} and {@code bridgeKotlin} benchmarks
 * measure what Spring's AOP costs around a Java method and around a Kotlin {@code suspend fun} (which Spring runs as
 * a {@code Mono} in a coroutine of its own, through Kotlin reflection), with no lock at all: the part of the
 * annotated Kotlin path that no advice can avoid.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface PassThrough {

    /** The advice: proceeds, and returns what the method (or, for a suspend fun, Spring's {@code Mono}) returned. */
    @Aspect
    class Advice {

        /**
         * Proceeds.
         * @param call the call
         * @return its result
         * @throws Throwable what it throws
         */
        @Around("@annotation(io.github.redlock.benchmarks.PassThrough)")
        public Object proceed(ProceedingJoinPoint call) throws Throwable {
            return call.proceed();
        }

    }

}
