package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.core.RedlockLease;
import kotlin.Unit;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.ContinuationInterceptor;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.ThreadContextElement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;


/**
 * Makes the coroutine of a Kotlin {@code suspend fun} the holder of its lock. Spring's AOP runs a suspend function
 * as a {@code Mono}: {@code proceed()} returns it, and the body runs in a coroutine of its own when it is subscribed,
 * in the caller's coroutine context (without the caller's {@code Job}), while the caller awaits it.
 * {@link ReactiveLocking} holds the lock from that subscription until the {@code Mono} ends (the body completed or
 * failed, or the caller was cancelled, which cancels the subscription and so the body). The body's coroutine is one
 * more holder of the lock until it has ended: a cancel only asks it to stop, and its {@code finally} blocks and the
 * blocking work it waits for in {@code withContext} run on after the cancel, under the lock. This class adds a
 * {@link Holds} element to the context the body's coroutine starts with, so that wherever the coroutine and its
 * children run (after a {@code delay}, in {@code withContext(Dispatchers.IO)}), the thread sees the coroutine's
 * locks while it runs the coroutine, and only then: a nested annotated call re-enters them and
 * {@link RedlockContext#currentLease()} returns the innermost lease. With {@code interruptOnLoss}, the loss of the
 * lease cancels the body's coroutine. The lock is acquired without blocking a thread when the caller's dispatcher
 * dispatches ({@link #dispatchedElsewhere}): it may arrive on a node connection's thread, where the body's
 * {@code Mono} is subscribed, whose coroutine then starts on that dispatcher. Where this aspect's advice is the
 * innermost, it makes that {@code Mono} itself instead of proceeding ({@link DirectSuspendCall}).
 * <p>
 * Loaded only when Kotlin, Kotlin reflection and kotlinx-coroutines-reactor are on the classpath
 * ({@link LockedMethod#COROUTINES_PRESENT}); nothing else in the aspect refers to a Kotlin type.
 */
final class CoroutineLocking {

    private static final Log logger = LogFactory.getLog(CoroutineLocking.class);

    private final ReentrantHolds holds;

    /** Which suspend functions this aspect's advice may call around Spring's bridge. */
    final DirectSuspendCall direct;

    /** The key of this aspect's element: the element of another aspect, with other holds, never replaces it. */
    private final HoldsKey key = new HoldsKey();

    CoroutineLocking(ReentrantHolds holds, RedlockedAspect aspect) {
        this.holds = holds;
        this.direct = new DirectSuspendCall(aspect);
    }

    /**
     * The invocation of one call: at each subscription, calls the method with its lock recorded as held by the
     * coroutine that runs the body, besides the locks the calling coroutine (or thread) holds. Called in the advice,
     * on the caller's thread, which shows the caller's locks.
     * @param method the method called, as the proxy was ({@code joinPoint}'s)
     * @param heldKeys how the lock is recorded ({@link ReentrantHolds#heldKeys})
     * @param outer the lock the caller holds already, which a re-entrant call shares, or null
     * @param key the evaluated key or keys, for the message of a loss
     */
    ReactiveLocking.Invocation invocation(ProceedingJoinPoint joinPoint, Method method, LockedMethod locked, List<String> heldKeys,
            @Nullable HeldLock outer, String key) {
        Map<String, HeldLock> callers = this.holds.snapshot();
        Method direct = this.direct.method(joinPoint, method, locked);
        return (held) -> {
            if (!held.retain()) {
                return null; // the subscription was cancelled, and the lock let go, before the body was called
            }
            Map<String, HeldLock> mine = new HashMap<>(callers);
            for (String heldKey : heldKeys) {
                mine.put(heldKey, held);
            }
            Holds element = new Holds(this.key, this.holds, Map.copyOf(mine), held);
            if (held != outer && locked.interruptOnLoss()) {
                // Only the call that took the lock cancels its coroutine, which the nested calls run in.
                held.lease().lost().thenRun(() -> element.lost(loss(locked, key, held.lease())));
            }
            Object[] args = joinPoint.getArgs().clone();
            @SuppressWarnings("unchecked")
            Continuation<Object> caller = (Continuation<Object>) args[args.length - 1];
            CoroutineContext context = caller.getContext().plus(element);
            @Nullable Object result;
            try {
                if (direct != null) {
                    result = DirectSuspendCall.start(direct, joinPoint.getTarget(), args, context.minusKey(Job.Key));
                }
                else {
                    // Spring's AOP takes only the context of this argument, for the coroutine that runs the body.
                    args[args.length - 1] = new InContext(caller, context);
                    result = joinPoint.proceed(args);
                }
            }
            catch (Throwable ex) {
                element.bodyEnded();
                throw ex;
            }
            return element.heldUntilTheBodyEnds(result);
        };
    }

    /**
     * Whether the body's coroutine starts on its dispatcher's threads wherever it is started from, so that the lock
     * may arrive on any thread: the caller's context has no interceptor (Spring then starts the body on
     * {@code Dispatchers.Default}), or a dispatcher that dispatches. Not {@code Dispatchers.Unconfined}, nor another
     * that runs in place, which would run the body on the thread that completed the acquisition, a node connection's.
     */
    boolean dispatchedElsewhere(ProceedingJoinPoint joinPoint) {
        Object[] args = joinPoint.getArgs();
        CoroutineContext context = ((Continuation<?>) args[args.length - 1]).getContext();
        CoroutineContext.Element interceptor = context.get(ContinuationInterceptor.Key);
        return interceptor == null || (interceptor instanceof CoroutineDispatcher dispatcher && dispatcher.isDispatchNeeded(context));
    }

    /** What cancels the coroutine of a call whose lease was lost: a cancellation caused by the loss. */
    private static CancellationException loss(LockedMethod locked, String key, RedlockLease lease) {
        IllegalStateException lost = new IllegalStateException("The lock '" + key + "' was lost while " + locked.description()
                + " ran (" + lease.lostReason().orElse("its validity ran out") + "); another client may hold it now");
        CancellationException cancellation = new CancellationException(locked.description() + " was cancelled: its lock '"
                + key + "' was lost (interruptOnLoss = true)");
        cancellation.initCause(lost);
        return cancellation;
    }

    /** The key of the {@link Holds} element of one aspect. */
    private static final class HoldsKey implements CoroutineContext.Key<Holds> {

    }

    /**
     * The locks a coroutine holds and its innermost lease, installed as the thread's each time the coroutine (or a
     * child, which inherits the element) resumes on a thread, and taken away when it suspends there. Immutable but
     * for the body's hold and the loss signal: the first coroutine it is installed for is the body's, whose {@link Job}
     * a loss cancels. Invariants: once a loss arrived, the body's coroutine is cancelled with it, whether the loss or
     * the body's start came first (each writes its field, then reads the other's); the body's hold of the lock is let
     * go exactly once, when the body's coroutine has completed (with its children), or when the method's publisher
     * ended or was cancelled before that coroutine started, which then never runs the body.
     */
    private static final class Holds extends AbstractCoroutineContextElement implements ThreadContextElement<Installed> {

        private static final AtomicReferenceFieldUpdater<Holds, Object> BODY = AtomicReferenceFieldUpdater.newUpdater(Holds.class,
                Object.class, "body");

        private static final AtomicIntegerFieldUpdater<Holds> LET_GO = AtomicIntegerFieldUpdater.newUpdater(Holds.class, "letGo");

        /** In place of the body's Job: the publisher was cancelled before the body's coroutine started. */
        private static final Object NEVER_STARTED = new Object();

        private final ReentrantHolds holds;

        private final Map<String, HeldLock> mine;

        private final HeldLock held;

        private final RedlockLease lease;

        /** The Job of the body's coroutine once it started, or {@link #NEVER_STARTED}. */
        private volatile @Nullable Object body;

        /** 1 once the body's hold of the lock was let go. */
        private volatile int letGo;

        /** The cancellation of a loss, once the lease was lost. */
        private volatile @Nullable CancellationException lost;

        /** The body's coroutine becomes a holder of {@code held}, which the caller retained for it. */
        Holds(HoldsKey key, ReentrantHolds holds, Map<String, HeldLock> mine, HeldLock held) {
            super(key);
            this.holds = holds;
            this.mine = mine;
            this.held = held;
            this.lease = held.lease();
        }

        /**
         * The method's {@code Mono} or {@code Flux}, which lets go of the body's hold as it completes or fails, before
         * the subscriber hears of it (whose hold, let go last, then releases the lock before the caller resumes).
         * A cancel leaves the hold to the body's coroutine, which lets go when it has ended. An advice inside the
         * lock's may answer without running the body (a cache hit): a plain value, or null, in place of the body's
         * {@code Mono}, which Spring's bridge would pass on as the function's result; the body then never runs.
         */
        Publisher<?> heldUntilTheBodyEnds(@Nullable Object result) {
            if (!(result instanceof Publisher<?>)) {
                bodyEnded();
                return Mono.justOrEmpty(result);
            }
            if (result instanceof Mono<?> mono) {
                return mono.doOnSuccess((value) -> bodyEnded()).doOnError((ex) -> bodyEnded()).doFinally(this::ended);
            }
            return Flux.from((Publisher<?>) result).doOnComplete(this::bodyEnded).doOnError((ex) -> bodyEnded())
                    .doFinally(this::ended);
        }

        private void ended(SignalType signal) {
            if (signal != SignalType.CANCEL || BODY.compareAndSet(this, null, NEVER_STARTED)) {
                // Cancelled before the body's coroutine started: the cancel reached it first, so it never runs the body.
                bodyEnded();
            }
        }

        /** Lets go of the body's hold of the lock, once. */
        void bodyEnded() {
            if (LET_GO.compareAndSet(this, 0, 1)) {
                this.held.dropAsync();
            }
        }

        @Override
        public Installed updateThreadContext(CoroutineContext context) {
            if (this.body == null) {
                started(context.get(Job.Key));
            }
            Map<String, HeldLock> previous = this.holds.install(this.mine);
            return new Installed(previous, RedlockContext.open(this.lease));
        }

        @Override
        public void restoreThreadContext(CoroutineContext context, Installed installed) {
            try {
                installed.scope().close();
            }
            catch (IllegalStateException ex) {
                // Never thrown into the coroutine machinery: a scope that code in the coroutine opened and left open
                // as it suspended keeps the thread's current lease; the thread's locks are restored all the same.
                logger.error("A RedlockContext scope opened in a coroutine holding the lock '" + this.lease.key()
                        + "' was left open across a suspension; close it before the coroutine suspends", ex);
            }
            finally {
                this.holds.restore(installed.previous());
            }
        }

        void lost(CancellationException cancellation) {
            this.lost = cancellation;
            if (this.body instanceof Job started) {
                started.cancel(cancellation);
            }
        }

        private void started(Job job) {
            if (job == null || !BODY.compareAndSet(this, null, job)) {
                return;
            }
            job.invokeOnCompletion((cause) -> {
                bodyEnded(); // with its children, its finally blocks, and what it waited for after a cancel
                return Unit.INSTANCE;
            });
            CancellationException cancellation = this.lost;
            if (cancellation != null) {
                job.cancel(cancellation); // lost before the body started: it stops at its first suspension
            }
        }

    }

    /** What a thread had before a coroutine's locks were installed, to restore when the coroutine suspends there. */
    private record Installed(Map<String, HeldLock> previous, RedlockContext.Scope scope) {

    }

    /** The caller's continuation with another context: only its context is read, for the body's coroutine. */
    private static final class InContext implements Continuation<Object> {

        private final Continuation<Object> caller;

        private final CoroutineContext context;

        InContext(Continuation<Object> caller, CoroutineContext context) {
            this.caller = caller;
            this.context = context;
        }

        @Override
        public CoroutineContext getContext() {
            return this.context;
        }

        @Override
        public void resumeWith(Object result) {
            this.caller.resumeWith(result);
        }

    }

}
