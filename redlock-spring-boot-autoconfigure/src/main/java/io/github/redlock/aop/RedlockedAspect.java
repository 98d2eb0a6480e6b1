package io.github.redlock.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.Ordered;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The aspect behind {@link Redlocked @Redlocked}: evaluates the key, acquires the lock (or skips or throws),
 * runs the method, and releases the lock when the method's result is complete. Nested calls on one thread
 * for a key it already holds run without locking again (a held write lock covers nested reads; a held read
 * lock cannot be upgraded). With auto-extension, the lease is extended while the method runs.
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

    private static final Log logger = LogFactory.getLog(RedlockedAspect.class);

    /** Marks the read-write locks in the held map apart from the exclusive locks of the same keys. */
    private static final String READ_WRITE = "\u0000rw:";

    /** The locks this thread holds while it runs annotated methods, by key (read-write locks marked apart). */
    private final ThreadLocal<Map<String, HeldLock>> held = ThreadLocal.withInitial(HashMap::new);

    private final ParameterNameDiscoverer parameterNames = new CachingParameterNames();

    private final BeanFactoryResolver beanResolver;

    private final ObjectProvider<Redlock> redlock;

    private final LockedMethods methods;

    private final GuardedObservers observers;

    private volatile int order = DEFAULT_ORDER;

    /**
     * Creates the aspect; the auto-configuration does, with the {@code redlock.*} defaults.
     * @param beanFactory resolves {@code @bean} references in keys and the {@link Redlock}
     * @param environment resolves {@code ${…}} placeholders
     * @param defaultTtl the ttl of annotations that set none
     * @param defaultWaitTime the wait time of annotations that set none
     * @param defaultMaxHold the maximum hold of auto-extended annotations that set none
     */
    public RedlockedAspect(BeanFactory beanFactory, Environment environment, Supplier<Duration> defaultTtl,
            Supplier<Duration> defaultWaitTime, Supplier<Duration> defaultMaxHold) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
        this.redlock = beanFactory.getBeanProvider(Redlock.class);
        this.methods = new LockedMethods(environment, defaultTtl, defaultWaitTime, defaultMaxHold);
        this.observers = new GuardedObservers(beanFactory.getBeanProvider(RedlockedObserver.class));
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
    public Object lock(ProceedingJoinPoint joinPoint) throws Throwable {
        Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
        Object target = joinPoint.getTarget();
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
        LockedMethod locked = this.methods.get(method, targetClass);
        String key = key(locked, method, joinPoint.getArgs(), target, targetClass);
        String heldKey = (locked.mode() == LockMode.EXCLUSIVE) ? key : READ_WRITE + key;
        Map<String, HeldLock> mine = this.held.get();
        HeldLock outer = mine.get(heldKey);
        if (outer != null) {
            if (locked.mode() == LockMode.WRITE && outer.mode() == LockMode.READ) {
                throw new IllegalStateException("@Redlocked(mode = WRITE) on " + locked.description() + " was called while "
                        + "this thread holds the read lock of '" + key + "': a read lock cannot be upgraded (the write "
                        + "lock would wait for this thread's own read). Take the write lock in the outer call instead.");
            }
            // Re-entrant: this thread holds the key already. The call becomes one more holder of that lock, so that
            // an asynchronous result keeps it after the outer call returned.
            if (locked.result() == LockedMethod.Result.MONO || locked.result() == LockedMethod.Result.FLUX) {
                return ReactiveLocking.reenter(locked.result(), outer, () -> acquire(locked, key),
                        (hold) -> proceedHolding(joinPoint, this.held.get(), heldKey, hold));
            }
            if (outer.retain()) {
                return proceedAndLetGo(joinPoint, locked, mine, heldKey, outer, false);
            }
            // The outer lock was let go meanwhile (a reactive outer call cancelled on another thread): lock anew.
        }
        if (locked.result() == LockedMethod.Result.MONO || locked.result() == LockedMethod.Result.FLUX) {
            return ReactiveLocking.lock(locked.result(), () -> acquire(locked, key),
                    (hold) -> proceedHolding(joinPoint, this.held.get(), heldKey, hold));
        }
        HeldLock hold = acquire(locked, key);
        if (hold == null) {
            return locked.skippedValue();
        }
        return proceedAndLetGo(joinPoint, locked, mine, heldKey, hold, true);
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
                    ReflectionUtils.doWithMethods(type, (method) -> aspect.getObject().methods.get(method, type),
                            (method) -> AnnotatedElementUtils.hasAnnotation(method, Redlocked.class));
                }
                return bean;
            }

        };
    }

    private String key(LockedMethod locked, Method method, Object[] args, Object target, Class<?> targetClass) {
        if (locked.key().isLiteral()) {
            return locked.key().evaluate(null, locked.description());
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new RedlockedRoot(method, args, target, targetClass), method, args, this.parameterNames);
        context.setBeanResolver(this.beanResolver);
        return locked.key().evaluate(context, locked.description());
    }

    /**
     * Runs the method as one holder of {@code hold}, and lets go when the method returns or throws or, for a
     * {@code CompletionStage}, when that completes (or is cancelled).
     * @param acquiredHere whether this call acquired the lock (then its thread is the one to interrupt on loss)
     */
    private static Object proceedAndLetGo(ProceedingJoinPoint joinPoint, LockedMethod locked, Map<String, HeldLock> mine,
            String heldKey, HeldLock hold, boolean acquiredHere) throws Throwable {
        Object result;
        try {
            result = proceedHolding(joinPoint, mine, heldKey, hold);
        }
        catch (Throwable ex) {
            if (acquiredHere) {
                hold.callReturned();
            }
            hold.drop(true);
            throw ex;
        }
        if (acquiredHere) {
            hold.callReturned();
        }
        if (locked.result() == LockedMethod.Result.COMPLETION_STAGE && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> hold.drop(false));
        }
        else {
            hold.drop(true);
        }
        return result;
    }

    /** Returns the held lock, or null when the call is to be skipped; throws when it must fail. */
    HeldLock acquire(LockedMethod locked, String key) {
        Redlock lock = this.redlock.getObject();
        long start = System.nanoTime();
        RedlockLease lease;
        try {
            lease = acquire(lock, locked, key);
        }
        catch (RuntimeException ex) {
            this.observers.acquisition(locked.template(), false, System.nanoTime() - start);
            throw ex;
        }
        // Never throws (observers are guarded), so the lease below always reaches a holder that releases it.
        Runnable onRelease = this.observers.acquisition(locked.template(), lease != null, System.nanoTime() - start);
        if (lease == null) {
            return null;
        }
        HeldLock held = new HeldLock(lease, locked, this.observers, onRelease, locked.interruptOnLoss() ? Thread.currentThread() : null);
        held.watch();
        return held;
    }

    private static RedlockLease acquire(Redlock lock, LockedMethod locked, String key) {
        boolean skip = locked.onFailure() == OnFailure.SKIP;
        return switch (locked.mode()) {
            case EXCLUSIVE -> skip ? lock.tryAcquire(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquire(key, locked.ttl(), locked.waitTime());
            case READ -> skip ? lock.tryAcquireRead(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquireRead(key, locked.ttl(), locked.waitTime());
            case WRITE -> skip ? lock.tryAcquireWrite(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquireWrite(key, locked.ttl(), locked.waitTime());
        };
    }

    /** Parameter names, discovered once per method instead of on every key evaluation. */
    private static final class CachingParameterNames implements ParameterNameDiscoverer {

        private static final String[] UNKNOWN = new String[0];

        private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

        private final Map<Method, String[]> names = new ConcurrentHashMap<>();

        @Override
        public String[] getParameterNames(Method method) {
            String[] found = this.names.computeIfAbsent(method, (key) -> {
                String[] discovered = this.discoverer.getParameterNames(key);
                return (discovered != null) ? discovered : UNKNOWN;
            });
            return (found != UNKNOWN) ? found : null;
        }

        @Override
        public String[] getParameterNames(Constructor<?> constructor) {
            return this.discoverer.getParameterNames(constructor);
        }

    }

    /**
     * Calls the method with {@code hold} recorded as this thread's lock of the key, so that nested calls
     * re-enter it; restores what was recorded before when the method returns or throws.
     */
    private static Object proceedHolding(ProceedingJoinPoint joinPoint, Map<String, HeldLock> held, String heldKey,
            HeldLock hold) throws Throwable {
        HeldLock previous = held.put(heldKey, hold);
        try {
            return joinPoint.proceed();
        }
        finally {
            if (previous != null) {
                held.put(heldKey, previous);
            }
            else {
                held.remove(heldKey);
            }
        }
    }

}
