package io.github.redlock.aop;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.core.RedlockLease;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.ThreadContextElement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aspectj.lang.ProceedingJoinPoint;

/**
 * Makes the coroutine of a Kotlin {@code suspend fun} the holder of its lock. Spring's AOP runs a suspend function
 * as a {@code Mono}: {@code proceed()} returns it, and the body runs in a coroutine of its own when it is subscribed,
 * in the caller's coroutine context (without the caller's {@code Job}), while the caller awaits it.
 * {@link ReactiveLocking} holds the lock from that subscription until the {@code Mono} ends (the body completed or
 * failed, or the caller was cancelled, which cancels the subscription and so the body). This class adds a
 * {@link Holds} element to the context the body's coroutine starts with, so that wherever the coroutine and its
 * children run (after a {@code delay}, in {@code withContext(Dispatchers.IO)}), the thread sees the coroutine's
 * locks while it runs the coroutine, and only then: a nested annotated call re-enters them and
 * {@link RedlockContext#currentLease()} returns the innermost lease. With {@code interruptOnLoss}, the loss of the
 * lease cancels the body's coroutine.
 * <p>
 * Loaded only when Kotlin, Kotlin reflection and kotlinx-coroutines-reactor are on the classpath
 * ({@link LockedMethod#COROUTINES_PRESENT}); nothing else in the aspect refers to a Kotlin type.
 */
final class CoroutineLocking {

    private static final Log logger = LogFactory.getLog(CoroutineLocking.class);

    private final ReentrantHolds holds;

    /** The key of this aspect's element: the element of another aspect, with other holds, never replaces it. */
    private final HoldsKey key = new HoldsKey();

    CoroutineLocking(ReentrantHolds holds) {
        this.holds = holds;
    }

    /**
     * The invocation of one call: at each subscription, calls the method with its lock recorded as held by the
     * coroutine that runs the body, besides the locks the calling coroutine (or thread) holds. Called in the advice,
     * on the caller's thread, which shows the caller's locks.
     * @param heldKeys how the lock is recorded ({@link ReentrantHolds#heldKeys})
     * @param outer the lock the caller holds already, which a re-entrant call shares, or null
     * @param key the evaluated key or keys, for the message of a loss
     */
    ReactiveLocking.Invocation invocation(ProceedingJoinPoint joinPoint, LockedMethod locked, List<String> heldKeys, HeldLock outer,
            String key) {
        Map<String, HeldLock> callers = this.holds.snapshot();
        return (held) -> {
            Map<String, HeldLock> mine = new HashMap<>(callers);
            for (String heldKey : heldKeys) {
                mine.put(heldKey, held);
            }
            Holds element = new Holds(this.key, this.holds, Map.copyOf(mine), held.lease());
            if (held != outer && locked.interruptOnLoss()) {
                // Only the call that took the lock cancels its coroutine, which the nested calls run in.
                held.lease().lost().thenRun(() -> element.lost(loss(locked, key, held.lease())));
            }
            Object[] args = joinPoint.getArgs().clone();
            @SuppressWarnings("unchecked")
            Continuation<Object> caller = (Continuation<Object>) args[args.length - 1];
            // Spring's AOP takes only the context of this argument, for the coroutine that runs the body.
            args[args.length - 1] = new InContext(caller, caller.getContext().plus(element));
            return joinPoint.proceed(args);
        };
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
     * for the loss signal: the first coroutine it is installed for is the body's, whose {@link Job} a loss cancels.
     * Invariant: once a loss arrived, the body's coroutine is cancelled with it, whether the loss or the body's start
     * came first (each writes its field, then reads the other's).
     */
    private static final class Holds extends AbstractCoroutineContextElement implements ThreadContextElement<Installed> {

        private static final AtomicReferenceFieldUpdater<Holds, Job> BODY = AtomicReferenceFieldUpdater.newUpdater(Holds.class,
                Job.class, "body");

        private final ReentrantHolds holds;

        private final Map<String, HeldLock> mine;

        private final RedlockLease lease;

        /** The Job of the body's coroutine, once it started. */
        private volatile Job body;

        /** The cancellation of a loss, once the lease was lost. */
        private volatile CancellationException lost;

        Holds(HoldsKey key, ReentrantHolds holds, Map<String, HeldLock> mine, RedlockLease lease) {
            super(key);
            this.holds = holds;
            this.mine = mine;
            this.lease = lease;
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
            Job started = this.body;
            if (started != null) {
                started.cancel(cancellation);
            }
        }

        private void started(Job job) {
            if (job == null || !BODY.compareAndSet(this, null, job)) {
                return;
            }
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
