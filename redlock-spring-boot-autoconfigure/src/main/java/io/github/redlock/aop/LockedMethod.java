package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
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
 * @param interruptOnLoss whether to interrupt the method's thread (cancel a suspend function's coroutine) when the lock is lost
 * @param adapter for a reactive result, the adapter between its type (a suspend function's: the Mono or Flux Spring's AOP
 * hands the advice) and a Reactive Streams publisher; else null
 * @param fenced whether the transaction the method runs in advances the fence of its lock's names before it commits
 */
record LockedMethod(String template, java.util.List<KeyTemplate> keys, Duration ttl, Duration waitTime, OnFailure onFailure, Result result,
        String description, LockMode mode, @Nullable Duration maxHold, boolean interruptOnLoss, @Nullable ReactiveAdapter adapter,
        boolean fenced) {

    /** Whether the lease is watched for loss while the method runs (extension, or interruption). */
    boolean watchesLoss() {
        return this.maxHold != null || this.interruptOnLoss;
    }


    static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", LockedMethod.class.getClassLoader());

    /**
     * Whether Kotlin suspend functions can be locked: Spring's AOP runs them as a {@code Mono} only with
     * kotlinx-coroutines-reactor, and with Kotlin reflection; {@link CoroutineLocking} is loaded only then.
     */
    static final boolean COROUTINES_PRESENT = REACTOR_PRESENT && KotlinDetector.isKotlinReflectPresent()
            && ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockedMethod.class.getClassLoader());

    /** The value a skipped call returns. */
    @Nullable Object skippedValue() {
        return switch (this.result) {
            case OPTIONAL -> Optional.empty();
            case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
            case MONO, FLUX, SUSPEND, SUSPEND_FLOW -> ReactiveLocking.empty(this);
            default -> null;
        };
    }

    /** The method as errors name it, e.g. {@code OrderService.pay(Order)}; a suspend function without its {@code Continuation}. */
    static String describe(Method method) {
        StringBuilder description = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        int count = KotlinDetector.isSuspendingFunction(method) ? types.length - 1 : types.length;
        for (int i = 0; i < count; i++) {
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
        FLUX,

        /**
         * A Kotlin {@code suspend fun}: Spring's AOP hands the advice a {@code Mono} that runs the body in a coroutine
         * when subscribed, and the caller awaits it; locked from that subscription to the coroutine's end, the hold
         * owned by the coroutine.
         */
        SUSPEND,

        /**
         * A Kotlin {@code suspend fun} that returns a {@code Flow} (or another stream): a {@code Flux} that runs the
         * body, then the stream, when collected; locked from the collection to its end.
         */
        SUSPEND_FLOW;

        /** Whether the result is a reactive type, locked from its subscription to its termination. */
        boolean reactive() {
            return this == MONO || this == FLUX || suspending();
        }

        /** Whether the method is a Kotlin suspend function. */
        boolean suspending() {
            return this == SUSPEND || this == SUSPEND_FLOW;
        }

        /** Whether the reactive result has many values (a {@code Flux}), not one at most (a {@code Mono}). */
        boolean multiValued() {
            return this == FLUX || this == SUSPEND_FLOW;
        }

        /** Whether the result is complete when the method returns (its work ran on the calling thread). */
        boolean synchronous() {
            return this == VALUE || this == PRIMITIVE || this == OPTIONAL;
        }

        /**
         * The adapter between the method's reactive result and a publisher, or null when the result is not reactive:
         * a suspend function's is the {@code Mono} or {@code Flux} that Spring's AOP hands the advice.
         */
        @Nullable ReactiveAdapter adapterOf(Method method) {
            return switch (this) {
                case MONO, FLUX -> adapterOf(method.getReturnType());
                case SUSPEND, SUSPEND_FLOW -> ReactiveLocking.suspendingAdapter(multiValued());
                default -> null;
            };
        }

        /** The adapter of a reactive return type (Reactor present), or null. */
        private static @Nullable ReactiveAdapter adapterOf(Class<?> returnType) {
            if (!REACTOR_PRESENT || Optional.class == returnType || CompletionStage.class.isAssignableFrom(returnType)) {
                return null;
            }
            return ReactiveLocking.adapterOf(returnType);
        }

        /**
         * How the method's result completes. A suspend function is one value at most, unless what it returns is
         * itself a stream (a {@code Flow}, a {@code Flux}), which Spring's AOP hands on as a {@code Flux}.
         * @throws RedlockConfigurationException for a suspend function that Spring's AOP cannot run as a {@code Mono}
         */
        static Result of(Method method) {
            if (!KotlinDetector.isSuspendingFunction(method)) {
                return of(method.getReturnType());
            }
            if (!COROUTINES_PRESENT) {
                String description = describe(method);
                throw new RedlockConfigurationException("@Redlocked on " + description + ", a Kotlin suspend function, "
                        + "without kotlinx-coroutines-reactor or kotlin-reflect on the classpath: Spring's AOP then calls "
                        + "it without the Mono that the lock is held around.", "Add org.jetbrains.kotlinx:"
                        + "kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect to the application.", null);
            }
            ReactiveAdapter adapter = ReactiveLocking.adapterOf(new MethodParameter(method, -1).getParameterType());
            return (adapter != null && adapter.isMultiValue()) ? SUSPEND_FLOW : SUSPEND;
        }

        private static Result of(Class<?> returnType) {
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
