package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.core.Redlock;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The aspect behind {@link Redlocked @Redlocked}: evaluates the key, acquires the lock (or skips or throws),
 * runs the method, and releases the lock when the method's result is complete. Nested calls on one thread (or,
 * for Kotlin suspend functions, in one coroutine) for a key it already holds run without locking again (a held
 * write lock covers nested reads; a held read lock cannot be upgraded). With auto-extension, the lease is extended
 * while the method runs.
 * <p>
 * The aspect only routes a call: {@link LockedMethods} resolves each method's settings once, {@link KeyEvaluator}
 * evaluates the key, {@link ReentrantHolds} knows the locks this thread holds, {@link LockTaker} takes the
 * lock, {@link HeldLock} releases it when its last holder is done, {@link ReactiveLocking} locks around
 * reactive results, {@link CoroutineLocking} makes the coroutine of a Kotlin suspend function the holder of
 * its lock, and {@link FencedTransactions} checks the fence of a {@code fenced} method's transaction before it commits.
 * <p>
 * It is {@link Ordered}, by default at {@link #DEFAULT_ORDER}, so that it wraps a {@code @Transactional}
 * interceptor of the default order: the lock is taken before the transaction begins and released after it
 * has committed or rolled back, so that the next holder sees the committed state.
 */
@Aspect
public class RedlockedAspect implements Ordered {

    /**
     * The default order: one before {@link Ordered#LOWEST_PRECEDENCE}, the default order of
     * {@code @EnableTransactionManagement}, so that the lock is held around the transaction.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1;

    private final ReentrantHolds holds = new ReentrantHolds();

    /** Locks around Kotlin suspend functions; null without Kotlin coroutines, when there are none to lock. */
    private final @Nullable CoroutineLocking coroutines = LockedMethod.COROUTINES_PRESENT ? new CoroutineLocking(this.holds, this) : null;

    private final KeyEvaluator keys;

    private final LockedMethods methods;

    private final LockTaker locks;

    private final BeanFactory beanFactory;

    /** The guard of fenced methods, made at the first call of one; null until then. */
    private volatile @Nullable FencedTransactions fences;

    private volatile int order = DEFAULT_ORDER;

    /**
     * Creates the aspect; the auto-configuration does, with the {@code redlock.*} defaults.
     * @param beanFactory resolves {@code @bean} references in keys and the {@link Redlock}
     * @param environment resolves {@code ${…}} placeholders
     * @param defaults what methods get for settings they leave empty, and the ttl limit; asked for when each
     * method is first resolved
     */
    public RedlockedAspect(BeanFactory beanFactory, Environment environment, Supplier<RedlockedDefaults> defaults) {
        this.beanFactory = beanFactory;
        this.keys = new KeyEvaluator(beanFactory);
        this.methods = new LockedMethods(environment, defaults);
        this.locks = new LockTaker(beanFactory.getBeanProvider(Redlock.class),
                new GuardedObservers(beanFactory.getBeanProvider(RedlockedObserver.class)));
    }

    /**
     * Sets the aspect's order among the advice of a method; lower runs further outside. Keep it below the order
     * of the transaction interceptor, so that the lock is held until the transaction has ended.
     * @param order the order, {@link #DEFAULT_ORDER} unless set
     */
    public void setOrder(int order) {
        this.order = order;
    }

    /**
     * Returns the aspect's order among the advice of a method.
     * @return the order
     */
    @Override
    public int getOrder() {
        return this.order;
    }

    /**
     * Runs an annotated method under its lock.
     * @param joinPoint the call
     * @return the method's result, or what a skipped call returns
     * @throws Throwable what the method threw, or {@link io.github.redlock.core.RedlockAcquisitionException}
     */
    @Around("@annotation(io.github.redlock.annotation.Redlocked)")
    public @Nullable Object lock(ProceedingJoinPoint joinPoint) throws Throwable {
        Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
        Object target = joinPoint.getTarget();
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
        LockedMethod locked = this.methods.get(method, targetClass);
        List<String> keys = this.keys.evaluate(locked, method, joinPoint.getArgs(), target, targetClass);
        List<String> heldKeys = ReentrantHolds.heldKeys(locked.mode(), keys);
        HeldLock outer = this.holds.current(heldKeys);
        refuseWaitingForItself(locked, keys, heldKeys, outer);
        ReactiveLocking.Invocation proceed = (hold) -> this.holds.proceedHolding(heldKeys, hold, joinPoint::proceed);
        if (locked.result().reactive()) {
            Supplier<CompletableFuture<HeldLock>> acquire = () -> this.locks.acquireAsync(locked, keys);
            ReactiveLocking.Invocation invoke = locked.result().suspending()
                    ? coroutines().invocation(joinPoint, method, locked, heldKeys, outer, String.join(",", keys)) : proceed;
            // Re-entrant: the caller holds the key already. Each subscription becomes one more holder of that lock, so
            // that the result keeps it after the outer call returned.
            if (outer == null && locked.result().suspending() && coroutines().dispatchedElsewhere(joinPoint)) {
                // No thread waits for the lock: the body's coroutine starts on its dispatcher once the lock arrived.
                return ReactiveLocking.lockAsync(locked, acquire, invoke);
            }
            return (outer != null) ? ReactiveLocking.reenter(locked, outer, acquire, invoke)
                    : ReactiveLocking.lock(locked, acquire, invoke);
        }
        ReactiveLocking.Invocation body = proceed;
        if (locked.fenced()) {
            FencedTransactions fences = fences(locked);
            boolean inActiveTransaction = fences.checkTransaction(locked, method, targetClass); // before the lock is taken
            body = (hold) -> fences.proceed(locked, keys, hold.lease(), inActiveTransaction, () -> proceed.proceed(hold));
        }
        if (outer != null && outer.retain()) {
            return proceedAndLetGo(locked, outer, false, body); // re-entrant, as one more holder of the outer lock
        }
        // No outer lock, or it was let go meanwhile (a reactive outer call cancelled on another thread): lock anew.
        HeldLock hold = this.locks.acquire(locked, keys);
        if (hold == null) {
            return locked.skippedValue();
        }
        return proceedAndLetGo(locked, hold, true, body);
    }

    /** The guard of fenced methods; made, and the {@code JdbcFence} looked up, at the first call of one. */
    private FencedTransactions fences(LockedMethod locked) {
        FencedTransactions fences = this.fences;
        if (fences == null) {
            fences = FencedTransactions.of(this.beanFactory, locked);
            this.fences = fences;
        }
        return fences;
    }

    /** Resolves a method at start-up: its settings, and for a fenced one the fence it needs. */
    private void validate(Method method, Class<?> targetClass) {
        LockedMethod locked = this.methods.get(method, targetClass);
        if (locked.fenced()) {
            FencedTransactions.check(this.beanFactory, locked);
        }
    }

    /**
     * Whether the last call of the suspend function on a proxy of the class went around Spring's AOP bridge, this
     * advice being the innermost of the method's ({@link DirectSuspendCall}); false without Kotlin. For the tests.
     */
    boolean calledDirectly(Method method, Class<?> targetClass) {
        return this.coroutines != null && this.coroutines.direct.calledDirectly(method, targetClass);
    }

    /** Locks around suspend functions: there whenever one was resolved ({@link LockedMethod.Result#of(Method)} refuses it otherwise). */
    private CoroutineLocking coroutines() {
        return Objects.requireNonNull(this.coroutines, "Kotlin coroutines are present when a suspend function is locked");
    }

    /**
     * Refuses a call that would wait for a lock its own caller holds: a lock on several keys that adds keys to one the
     * caller holds, or a write lock under the caller's read lock of the key.
     */
    private void refuseWaitingForItself(LockedMethod locked, List<String> keys, List<String> heldKeys, @Nullable HeldLock outer) {
        String key = String.join(",", keys);
        if (outer == null && keys.size() > 1) {
            String held = this.holds.heldElsewhere(heldKeys);
            if (held != null) {
                throw new IllegalStateException("@Redlocked(keys = …) on " + locked.description() + " was called for the keys '"
                        + key + "' while this thread holds '" + held + "' through an outer lock: the lock on the set would "
                        + "wait for this thread's own lock. Take the whole set in the outer call instead.");
            }
        }
        if (outer != null && locked.mode() == LockMode.WRITE && outer.mode() == LockMode.READ) {
            throw new IllegalStateException("@Redlocked(mode = WRITE) on " + locked.description() + " was called while "
                    + "this thread holds the read lock of '" + key + "': a read lock cannot be upgraded (the write "
                    + "lock would wait for this thread's own read). Take the write lock in the outer call instead.");
        }
    }

    /**
     * Returns a post-processor that resolves every {@code @Redlocked} method of each bean as it is created, so
     * that a bad key template, duration or failure mode stops the start-up with a clear message.
     * @param aspect the aspect, looked up when the first annotated bean appears
     * @return the post-processor
     */
    public static BeanPostProcessor validator(ObjectProvider<RedlockedAspect> aspect) {
        return new BeanPostProcessor() {

            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                Class<?> type = ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean));
                if (AnnotationUtils.isCandidateClass(type, Redlocked.class)) {
                    // Not the methods a compiler made, never called through the proxy (a bridge, or the static
                    // copy of the body of a Kotlin suspend function, which carries its annotations).
                    ReflectionUtils.doWithMethods(type, (method) -> aspect.getObject().validate(method, type),
                            (method) -> !method.isSynthetic() && AnnotatedElementUtils.hasAnnotation(method, Redlocked.class));
                }
                return bean;
            }

        };
    }

    /**
     * Runs the method as one holder of {@code hold}, and lets go when the method returns or throws or, for a
     * {@code CompletionStage}, when that completes (or is cancelled).
     * @param acquiredHere whether this call acquired the lock (then its thread is the one to interrupt on loss)
     */
    private static @Nullable Object proceedAndLetGo(LockedMethod locked, HeldLock hold, boolean acquiredHere,
            ReactiveLocking.Invocation proceed) throws Throwable {
        Object result;
        try {
            result = proceed.proceed(hold);
        }
        catch (Throwable ex) {
            if (acquiredHere) {
                hold.callReturned();
            }
            hold.drop();
            throw ex;
        }
        if (acquiredHere) {
            hold.callReturned();
        }
        if (locked.result() == LockedMethod.Result.COMPLETION_STAGE && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> hold.dropAsync());
        }
        else {
            hold.drop();
        }
        return result;
    }

}
