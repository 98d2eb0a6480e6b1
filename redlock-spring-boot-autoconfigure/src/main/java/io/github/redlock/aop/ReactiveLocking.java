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
     * Wraps the method's publisher so that each subscription acquires the lock, off the subscriber's thread.
     * @param acquire returns the lock, or null when the call is skipped (throws when it must fail)
     * @param invoke calls the method, as a holder of the lock, and returns its publisher
     */
    static Object lock(LockedMethod.Result result, Callable<HeldLock> acquire, Invocation invoke) {
        return lock(result, acquisition(acquire), invoke);
    }

    /**
     * Wraps the publisher of a call made on a thread that holds the lock already: each subscription becomes
     * one more holder of that lock, or, once the lock has been let go, acquires a lock of its own after the
     * release, so that work subscribed late never runs unlocked.
     * @param outer the lock the calling thread holds
     * @param acquire returns a lock of its own, or null when the call is skipped (throws when it must fail)
     * @param invoke calls the method, as a holder of the lock, and returns its publisher
     */
    static Object reenter(LockedMethod.Result result, HeldLock outer, Callable<HeldLock> acquire, Invocation invoke) {
        Mono<HeldLock> lock = Mono.defer(() -> outer.retain() ? Mono.just(outer)
                : Mono.fromFuture(outer.released(), true).then(acquisition(acquire)));
        return lock(result, lock, invoke);
    }

    private static Mono<HeldLock> acquisition(Callable<HeldLock> acquire) {
        return Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic());
    }

    private static Object lock(LockedMethod.Result result, Mono<HeldLock> lock, Invocation invoke) {
        if (result == LockedMethod.Result.MONO) {
            return Mono.usingWhen(lock, (held) -> Mono.from(call(invoke, held)), ReactiveLocking::release,
                    (held, error) -> release(held), ReactiveLocking::release);
        }
        return Flux.usingWhen(lock, (held) -> call(invoke, held), ReactiveLocking::release, (held, error) -> release(held),
                ReactiveLocking::release);
    }

    private static Publisher<?> call(Invocation invoke, HeldLock held) {
        try {
            Publisher<?> publisher = (Publisher<?>) invoke.proceed(held);
            return (publisher != null) ? publisher : Mono.empty();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }

    /** Calls the method as a holder of the lock; may throw anything it throws. */
    @FunctionalInterface
    interface Invocation {

        Object proceed(HeldLock held) throws Throwable;

    }

    private static Mono<?> release(HeldLock held) {
        return Mono.fromFuture(held::dropAsync);
    }

}
