package io.github.redlock.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.ReentrantLock;
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

    private final ThreadLocal<Map<String, Reentry>> held = ThreadLocal.withInitial(HashMap::new);

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
        Map<String, Reentry> mine = this.held.get();
        Reentry outer = mine.get(heldKey);
        if (outer != null) {
            if (locked.mode() == LockMode.WRITE && outer.mode == LockMode.READ) {
                throw new IllegalStateException("@Redlocked(mode = WRITE) on " + locked.description() + " was called while "
                        + "this thread holds the read lock of '" + key + "': a read lock cannot be upgraded (the write "
                        + "lock would wait for this thread's own read). Take the write lock in the outer call instead.");
            }
            return proceedHolding(joinPoint, mine, heldKey, outer.mode); // re-entrant: this thread holds the key already
        }
        if (locked.result() == LockedMethod.Result.MONO || locked.result() == LockedMethod.Result.FLUX) {
            return ReactiveLocking.lock(locked.result(), () -> acquire(locked, key),
                    () -> proceedHolding(joinPoint, this.held.get(), heldKey, locked.mode()));
        }
        Held lease = acquire(locked, key);
        if (lease == null) {
            return locked.skippedValue();
        }
        Object result;
        try {
            result = proceedHolding(joinPoint, mine, heldKey, locked.mode());
        }
        catch (Throwable ex) {
            lease.finish();
            throw ex;
        }
        if (locked.result() == LockedMethod.Result.COMPLETION_STAGE && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> lease.finishAsync());
        }
        else {
            lease.finish();
        }
        return result;
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

    /** Returns the held lock, or null when the call is to be skipped; throws when it must fail. */
    Held acquire(LockedMethod locked, String key) {
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
        Held held = new Held(lease, locked, this.observers, onRelease, locked.interruptOnLoss() ? Thread.currentThread() : null);
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

    /**
     * A lock held for an annotated call: extended automatically if asked, watched for loss (counted once;
     * the method's thread interrupted if asked), and released once, with the observer told of the release.
     */
    static final class Held {

        private final RedlockLease lease;

        private final LockedMethod locked;

        private final GuardedObservers observers;

        private final Runnable onRelease;

        private static final AtomicIntegerFieldUpdater<Held> LOSS_COUNTED = AtomicIntegerFieldUpdater.newUpdater(Held.class,
                "lossCounted");

        private volatile int lossCounted; // 1 once counted; an updater, not an AtomicBoolean per call

        /** The thread to interrupt on loss, while it runs the method; null when not asked to. */
        private final Thread runner;

        private final ReentrantLock runnerLock;

        private boolean running = true; // guarded by runnerLock

        Held(RedlockLease lease, LockedMethod locked, GuardedObservers observers, Runnable onRelease, Thread runner) {
            this.lease = lease;
            this.locked = locked;
            this.observers = observers;
            this.onRelease = onRelease;
            this.runner = runner;
            this.runnerLock = (runner != null) ? new ReentrantLock() : null;
        }

        /** Starts the auto-extension and the loss watch, as the method asks. */
        void watch() {
            if (this.locked.maxHold() != null) {
                this.lease.autoExtend(this.locked.maxHold());
            }
            if (this.locked.watchesLoss()) {
                this.lease.lost().thenRun(this::onLost);
            }
        }

        void finish() {
            stopRunning();
            checkValidity();
            this.lease.release();
            ended();
        }

        CompletableFuture<Boolean> finishAsync() {
            checkValidity();
            return this.lease.releaseAsync().whenComplete((released, failure) -> ended());
        }

        /** The lease was lost while the method ran (the core logged why). */
        private void onLost() {
            countLoss();
            if (this.runner != null) {
                this.runnerLock.lock();
                try {
                    if (this.running) {
                        this.runner.interrupt();
                    }
                }
                finally {
                    this.runnerLock.unlock();
                }
            }
        }

        private void stopRunning() {
            if (this.runner != null) {
                this.runnerLock.lock();
                try {
                    this.running = false;
                }
                finally {
                    this.runnerLock.unlock();
                }
            }
        }

        private void checkValidity() {
            if (!this.lease.isValid() && countLoss() && !this.locked.watchesLoss()) {
                logger.error("Lock '" + this.lease.key() + "' expired while " + this.locked.description() + " still ran ("
                        + "ttl " + this.locked.ttl() + "); another caller may have run at the same time. Give it a longer "
                        + "ttl, or autoExtend = true.");
            }
        }

        /** Counts the loss unless it was counted already; returns whether this call counted it. */
        private boolean countLoss() {
            if (!LOSS_COUNTED.compareAndSet(this, 0, 1)) {
                return false;
            }
            this.observers.lost(this.locked.template());
            return true;
        }

        private void ended() {
            if (this.onRelease != null) {
                this.onRelease.run();
            }
        }

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

    private static Object proceedHolding(ProceedingJoinPoint joinPoint, Map<String, Reentry> held, String heldKey,
            LockMode mode) throws Throwable {
        Reentry entry = held.computeIfAbsent(heldKey, (key) -> new Reentry(mode));
        entry.depth++;
        try {
            return joinPoint.proceed();
        }
        finally {
            if (--entry.depth == 0) {
                held.remove(heldKey);
            }
        }
    }

    /** A lock this thread holds: in which mode, and how many calls deep. */
    private static final class Reentry {

        private final LockMode mode;

        private int depth;

        Reentry(LockMode mode) {
            this.mode = mode;
        }

    }

}
