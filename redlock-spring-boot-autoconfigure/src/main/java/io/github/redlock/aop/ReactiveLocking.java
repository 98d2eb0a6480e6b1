package io.github.redlock.aop;

import java.util.concurrent.Callable;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Locks around a Reactor {@code Mono} or {@code Flux}: acquired when subscribed (off the subscriber's thread,
 * since acquisition may wait), released when it completes, fails or is cancelled. Loaded only when Reactor
 * is on the classpath.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    static LockedMethod.Result resultOf(Class<?> returnType) {
        if (Mono.class.isAssignableFrom(returnType)) {
            return LockedMethod.Result.MONO;
        }
        if (Flux.class.isAssignableFrom(returnType)) {
            return LockedMethod.Result.FLUX;
        }
        return LockedMethod.Result.VALUE;
    }

    static Object empty(LockedMethod.Result result) {
        return (result == LockedMethod.Result.MONO) ? Mono.empty() : Flux.empty();
    }

    /**
     * Wraps the method's publisher.
     * @param acquire returns the lease, or null when the call is skipped (throws when it must fail)
     * @param invoke calls the method and returns its publisher
     */
    static Object lock(LockedMethod.Result result, Callable<RedlockedAspect.Held> acquire, Invocation invoke) {
        Mono<RedlockedAspect.Held> lease = Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic());
        if (result == LockedMethod.Result.MONO) {
            return Mono.usingWhen(lease, (held) -> Mono.from(call(invoke)), ReactiveLocking::release,
                    (held, error) -> release(held), ReactiveLocking::release);
        }
        return Flux.usingWhen(lease, (held) -> call(invoke), ReactiveLocking::release, (held, error) -> release(held),
                ReactiveLocking::release);
    }

    private static Publisher<?> call(Invocation invoke) {
        try {
            Publisher<?> publisher = (Publisher<?>) invoke.proceed();
            return (publisher != null) ? publisher : Mono.empty();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }

    /** Calls the method; may throw anything it throws. */
    @FunctionalInterface
    interface Invocation {

        Object proceed() throws Throwable;

    }

    private static Mono<Boolean> release(RedlockedAspect.Held held) {
        return Mono.fromFuture(held::finishAsync);
    }

}
