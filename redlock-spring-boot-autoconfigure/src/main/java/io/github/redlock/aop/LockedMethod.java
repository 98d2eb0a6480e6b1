package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;

import org.springframework.core.ReactiveAdapter;
import org.springframework.util.ClassUtils;

/**
 * What a {@code @Redlocked} method asks for, resolved once: the key template, durations, failure mode and
 * how its result completes.
 *
 * @param template the key template as written in the annotation, or the templates of {@code keys} joined by commas (the
 * metrics' {@code lock} tag)
 * @param keys the parsed templates (one for {@code key}), placeholders resolved
 * @param ttl the lock's time to live
 * @param waitTime how long to keep trying
 * @param onFailure what to do without the lock
 * @param result how the method's result completes
 * @param description the method as errors name it, e.g. {@code OrderService.pay(Order)}
 * @param mode which lock it takes
 * @param maxHold how long auto-extension lasts, or null when the lock is not extended automatically
 * @param interruptOnLoss whether to interrupt the method's thread when the lock is lost
 * @param adapter for a reactive result, the adapter between its type and a Reactive Streams publisher; else null
 */
record LockedMethod(String template, java.util.List<KeyTemplate> keys, Duration ttl, Duration waitTime, OnFailure onFailure, Result result,
        String description, LockMode mode, Duration maxHold, boolean interruptOnLoss, ReactiveAdapter adapter) {

    /** Whether the lease is watched for loss while the method runs (extension, or interruption). */
    boolean watchesLoss() {
        return this.maxHold != null || this.interruptOnLoss;
    }


    static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", LockedMethod.class.getClassLoader());

    /** The value a skipped call returns. */
    Object skippedValue() {
        return switch (this.result) {
            case OPTIONAL -> Optional.empty();
            case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
            case MONO, FLUX -> ReactiveLocking.empty(this);
            default -> null;
        };
    }

    static String describe(Method method) {
        StringBuilder description = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            description.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
        }
        return description.append(')').toString();
    }

    /** How a method's result completes, which decides when the lock is released. */
    enum Result {

        /** Returns a value (or nothing) when done. */
        VALUE,

        /** Returns a primitive: cannot be skipped. */
        PRIMITIVE,

        /** Returns an {@code Optional}: skipped as empty. */
        OPTIONAL,

        /** Returns a {@code CompletionStage}: done when it completes. */
        COMPLETION_STAGE,

        /** Returns a reactive type of one value at most ({@code Mono}, …): locked from subscription to termination. */
        MONO,

        /** Returns a reactive type of many values ({@code Flux}, {@code Publisher}, …): locked from subscription to termination. */
        FLUX;

        /** Whether the result is a reactive type, locked from its subscription to its termination. */
        boolean reactive() {
            return this == MONO || this == FLUX;
        }

        /** Whether the result is complete when the method returns (its work ran on the calling thread). */
        boolean synchronous() {
            return this == VALUE || this == PRIMITIVE || this == OPTIONAL;
        }

        /** The adapter of a reactive return type (Reactor present), or null. */
        static ReactiveAdapter adapterOf(Class<?> returnType) {
            if (!REACTOR_PRESENT || Optional.class == returnType || CompletionStage.class.isAssignableFrom(returnType)) {
                return null;
            }
            return ReactiveLocking.adapterOf(returnType);
        }

        static Result of(Class<?> returnType) {
            if (returnType.isPrimitive() && returnType != void.class) {
                return PRIMITIVE;
            }
            if (Optional.class == returnType) {
                return OPTIONAL;
            }
            if (CompletionStage.class.isAssignableFrom(returnType)) {
                return COMPLETION_STAGE;
            }
            ReactiveAdapter adapter = adapterOf(returnType);
            return (adapter != null) ? ReactiveLocking.resultOf(adapter) : VALUE;
        }

    }

}
