package io.github.redlock.aop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redlock.annotation.RedlockContextAccessor;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * Locks around a reactive result: any type Spring's {@link ReactiveAdapterRegistry} knows ({@code Mono},
 * {@code Flux}, a plain {@code Publisher}, RxJava's types, Kotlin's {@code Flow} …), adapted to a {@code Mono}
 * (one value at most) or a {@code Flux} and back. The lock is acquired when the result is subscribed (off the
 * subscriber's thread, since acquisition may wait) and released when it completes, fails or is cancelled.
 * Loaded only when Reactor is on the classpath.
 * <p>
 * The cancel story: a subscriber may cancel at any moment. While the method's publisher runs, the cancel
 * travels upstream to it (the work is told to stop) and the lock is let go at once. While the acquisition is
 * still under way, the cancel stops it before it returns (its retries end, on the cancelling thread: a release that
 * follows the cancel never wakes it), the waiting thread ends its wait, and a lock that is granted all the same
 * (the grant raced the cancel) is let go as soon as it arrives, before it is extended; the method is not
 * called. Reactor would drop such a late value without a word, so every subscription keeps its lock in a
 * {@link Slot} from the moment it exists.
 */
final class ReactiveLocking {

    /** How much longer than the wait time a thread waits for an acquisition's decision, at most. */
    private static final Duration WAIT_MARGIN = Duration.ofMinutes(1);

    private ReactiveLocking() {
    }

    /** The adapter of a reactive return type, or null when the type is not reactive. */
    static @Nullable ReactiveAdapter adapterOf(Class<?> returnType) {
        return ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
    }

    /** The adapter of what Spring's AOP hands the advice of a Kotlin suspend function: a {@code Flux}, or a {@code Mono}. */
    static ReactiveAdapter suspendingAdapter(boolean multiValued) {
        return Objects.requireNonNull(adapterOf(multiValued ? Flux.class : Mono.class), "Reactor registers Flux and Mono");
    }

    /** How a reactive return type completes: one value at most, or many. */
    static LockedMethod.Result resultOf(ReactiveAdapter adapter) {
        return adapter.isMultiValue() ? LockedMethod.Result.FLUX : LockedMethod.Result.MONO;
    }

    /** What a skipped call returns: an empty result of the method's type. */
    static Object empty(LockedMethod locked) {
        return adapter(locked).fromPublisher(locked.result().multiValued() ? Flux.empty() : Mono.empty());
    }

    /**
     * Wraps the method's publisher so that each subscription acquires the lock, off the subscriber's thread.
     * @param acquire starts the acquisition: a future of the lock, of null when the call is skipped, or of the failure;
     * cancelling it stops the attempts and lets go of a lock taken meanwhile
     * @param invoke calls the method, as a holder of the lock, and returns its publisher
     */
    static Object lock(LockedMethod locked, Supplier<CompletableFuture<HeldLock>> acquire, Invocation invoke) {
        return lock(locked, (slot) -> acquisition(locked, slot, acquire), invoke);
    }

    /**
     * Wraps the publisher of a call made on a thread that holds the lock already: each subscription becomes
     * one more holder of that lock, or, once the lock has been let go, acquires a lock of its own after the
     * release, so that work subscribed late never runs unlocked.
     * @param outer the lock the calling thread holds
     * @param acquire starts an acquisition of a lock of its own, as {@link #lock(LockedMethod, Supplier, Invocation)}'s
     * @param invoke calls the method, as a holder of the lock, and returns its publisher
     */
    static Object reenter(LockedMethod locked, HeldLock outer, Supplier<CompletableFuture<HeldLock>> acquire, Invocation invoke) {
        return lock(locked, (slot) -> Mono.defer(() -> outer.retain() ? Mono.justOrEmpty(slot.arrived(outer))
                : Mono.fromFuture(outer.released(), true).then(acquisition(locked, slot, acquire))), invoke);
    }

    /**
     * Wraps the method's publisher so that each subscription acquires the lock without blocking a thread: the lock
     * arrives on the thread that completes the acquisition (a node connection's), where the method is called.
     * Only for a suspend function whose body its coroutine dispatcher runs elsewhere.
     * @param acquire returns a future of the lock, of null when the call is skipped, or of the failure; cancelling
     * it stops the acquisition and lets go of a lock taken meanwhile
     */
    static Object lockAsync(LockedMethod locked, Supplier<CompletableFuture<HeldLock>> acquire, Invocation invoke) {
        return lock(locked, (slot) -> Mono.defer(() -> {
            CompletableFuture<HeldLock> acquisition = acquire.get();
            // The lock goes to the slot as it arrives, before Reactor sees it (which drops a value that races a
            // cancel without a word): whichever of the two comes second lets it go.
            CompletableFuture<@Nullable HeldLock> handed = new CompletableFuture<>();
            acquisition.whenComplete((held, failure) -> {
                if (failure == null) {
                    handed.complete(slot.arrived(held));
                }
                else if (slot.isEnded()) {
                    handed.complete(null); // failed by the cancel: nobody listens
                }
                else {
                    handed.completeExceptionally(failure);
                }
            });
            return Mono.fromFuture(handed, true).doOnCancel(() -> acquisition.cancel(false));
        }), invoke);
    }

    /**
     * Acquires on a thread that may block, handing the lock to the slot on that thread, before Reactor sees it, so that
     * the method's publisher is subscribed there (never on a node connection's thread). A cancel stops the acquisition
     * at once, from the cancelling thread ({@link Slot#cancel()}), rather than once the waiting thread sees its interrupt.
     */
    private static Mono<HeldLock> acquisition(LockedMethod locked, Slot slot, Supplier<CompletableFuture<HeldLock>> acquire) {
        // The core decides within the wait time and its node timeouts; this bound only keeps a thread from waiting forever.
        long boundNanos = locked.waitTime().plus(WAIT_MARGIN).toNanos();
        return Mono.fromCallable(() -> slot.acquire(acquire, boundNanos)).subscribeOn(Schedulers.boundedElastic());
    }

    private static Object lock(LockedMethod locked, Function<Slot, Mono<HeldLock>> lockFor, Invocation invoke) {
        ReactiveAdapter adapter = adapter(locked);
        if (!locked.result().multiValued()) {
            return adapter.fromPublisher(Mono.defer(() -> {
                Slot slot = new Slot();
                return Mono.usingWhen(lockFor.apply(slot).doOnCancel(slot::cancel),
                        (held) -> slot.isEnded() ? Mono.empty() : Mono.from(call(adapter, invoke, held)).contextWrite(leaseIn(held)),
                        (held) -> slot.end(), (held, error) -> slot.end(), (held) -> slot.end());
            }));
        }
        return adapter.fromPublisher(Flux.defer(() -> {
            Slot slot = new Slot();
            return Flux.usingWhen(lockFor.apply(slot).doOnCancel(slot::cancel),
                    (held) -> slot.isEnded() ? Flux.empty() : Flux.from(call(adapter, invoke, held)).contextWrite(leaseIn(held)),
                    (held) -> slot.end(), (held, error) -> slot.end(), (held) -> slot.end());
        }));
    }

    /**
     * The lease in the method's publisher's Reactor context, where automatic context propagation makes it the
     * {@link io.github.redlock.annotation.RedlockContext#currentLease() current lease} of its operators.
     */
    private static Function<Context, Context> leaseIn(HeldLock held) {
        return (context) -> context.put(RedlockContextAccessor.KEY, held.lease());
    }

    /** The adapter of a reactive result: every method locked here has one ({@link LockedMethod.Result#adapterOf}). */
    private static ReactiveAdapter adapter(LockedMethod locked) {
        return Objects.requireNonNull(locked.adapter(), "a reactive result has an adapter");
    }

    private static Publisher<?> call(ReactiveAdapter adapter, Invocation invoke, HeldLock held) {
        try {
            Object result = invoke.proceed(held);
            return (result != null) ? adapter.toPublisher(result) : Mono.empty();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }

    /** Calls the method as a holder of the lock; may throw anything it throws. */
    @FunctionalInterface
    interface Invocation {

        @Nullable Object proceed(HeldLock held) throws Throwable;

    }

    /**
     * One subscription's hold on its lock. State in one atomic field: empty while acquiring, then the lock,
     * then {@code ENDED}; or straight from empty to {@code ENDED} when the subscriber went away first.
     * Invariant: a lock that reached the slot is let go exactly once, by the first end signal (completion,
     * error or cancel), or on arrival when the end came first. An acquisition under way when the subscriber goes
     * away is cancelled by whichever of the two comes second: the cancel, or the acquisition's start.
     */
    private static final class Slot {

        private static final Object ENDED = new Object();

        private final AtomicReference<Object> state = new AtomicReference<>();

        /** The acquisition under way, once started. */
        private volatile @Nullable CompletableFuture<HeldLock> acquisition;

        /**
         * Orders the start of the acquisition against a cancel: a cancel that ended the slot finds the acquisition
         * started (and cancels it) or keeps it from starting, so that nothing is sent after the cancel returned. Held
         * only while an acquisition is started, which sends its first commands without waiting.
         */
        private final ReentrantLock starting = new ReentrantLock();

        /**
         * Runs the acquisition and waits for it on this thread, at most {@code boundNanos}; a failure after the
         * subscriber went away (the acquisition cancelled, or this thread interrupted, by the cancel) is nobody's.
         */
        @Nullable HeldLock acquire(Supplier<CompletableFuture<HeldLock>> acquire, long boundNanos) throws Exception {
            CompletableFuture<HeldLock> started;
            this.starting.lock();
            try {
                if (isEnded()) {
                    return null; // cancelled before it started: nothing is sent
                }
                started = acquire.get();
                this.acquisition = started;
            }
            finally {
                this.starting.unlock();
            }
            HeldLock held;
            try {
                held = started.get(boundNanos, TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException | TimeoutException ex) {
                // Not the subscriber's cancel, which cancelled the acquisition first: stop it here, and take a lock
                // granted before that as a blocking acquisition would (it is let go at once if the slot has ended).
                HeldLock late = abandon(started);
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                if (late != null) {
                    return arrived(late);
                }
                if (isEnded()) {
                    return null;
                }
                throw (ex instanceof TimeoutException) ? new IllegalStateException("No decision on the lock within its wait time and "
                        + "a minute more; the acquisition was stopped", ex) : ex;
            }
            catch (CancellationException ex) {
                if (isEnded()) {
                    return null; // cancelled by the subscriber's cancel: no one listens
                }
                throw ex;
            }
            catch (ExecutionException ex) {
                if (isEnded()) {
                    return null; // no one listens: completing empty keeps Reactor from logging a dropped error
                }
                Throwable cause = ex.getCause();
                if (cause instanceof Error error) {
                    throw error;
                }
                throw (cause instanceof Exception exception) ? exception : ex;
            }
            return arrived(held);
        }

        /** Stops an acquisition given up on; returns the lock it granted first, if it did. */
        private static @Nullable HeldLock abandon(CompletableFuture<HeldLock> started) {
            if (started.cancel(false)) {
                return null;
            }
            try {
                return started.getNow(null);
            }
            catch (CancellationException | CompletionException ex) {
                return null;
            }
        }

        /** Takes the lock for the subscription, or lets it go at once when the subscription has ended. */
        @Nullable HeldLock arrived(@Nullable HeldLock held) {
            if (held == null || this.state.compareAndSet(null, held)) {
                return held;
            }
            held.dropAsync();
            return null;
        }

        boolean isEnded() {
            return this.state.get() == ENDED;
        }

        /** Ends the subscription's hold; the returned publisher completes once the lock's release (if due) is answered. */
        Mono<?> end() {
            Object previous = this.state.getAndSet(ENDED);
            return (previous instanceof HeldLock held) ? Mono.fromFuture(held::dropAsync) : Mono.empty();
        }

        /** The subscriber cancelled before the lock was handed to the method: stops an acquisition under way at once. */
        void cancel() {
            if (this.state.getAndSet(ENDED) instanceof HeldLock held) {
                held.dropAsync();
            }
            CompletableFuture<HeldLock> started;
            this.starting.lock(); // waits for an acquisition being started, which then is there to cancel
            try {
                started = this.acquisition;
            }
            finally {
                this.starting.unlock();
            }
            if (started != null) {
                started.cancel(false);
            }
        }

    }

}
