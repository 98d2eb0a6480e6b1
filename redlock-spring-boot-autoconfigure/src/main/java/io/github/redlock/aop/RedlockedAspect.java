package io.github.redlock.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

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
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The aspect behind {@link Redlocked @Redlocked}: evaluates the key, acquires the lock (or skips or throws),
 * runs the method, and releases the lock when the method's result is complete. Nested calls on one thread
 * for a key it already holds run without locking again.
 */
@Aspect
public class RedlockedAspect {

    private static final Log logger = LogFactory.getLog(RedlockedAspect.class);

    private final ThreadLocal<Map<String, Integer>> held = ThreadLocal.withInitial(HashMap::new);

    private final ParameterNameDiscoverer parameterNames = new CachingParameterNames();

    private final BeanFactoryResolver beanResolver;

    private final ObjectProvider<Redlock> redlock;

    private final LockedMethods methods;

    private final ObjectProvider<RedlockedObserver> observer;

    /**
     * Creates the aspect; the auto-configuration does, with the {@code redlock.*} defaults.
     * @param beanFactory resolves {@code @bean} references in keys and the {@link Redlock}
     * @param environment resolves {@code ${…}} placeholders
     * @param defaultTtl the ttl of annotations that set none
     * @param defaultWaitTime the wait time of annotations that set none
     */
    public RedlockedAspect(BeanFactory beanFactory, Environment environment, Supplier<Duration> defaultTtl,
            Supplier<Duration> defaultWaitTime) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
        this.redlock = beanFactory.getBeanProvider(Redlock.class);
        this.methods = new LockedMethods(environment, defaultTtl, defaultWaitTime);
        this.observer = beanFactory.getBeanProvider(RedlockedObserver.class);
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
        Map<String, Integer> mine = this.held.get();
        if (mine.containsKey(key)) {
            return proceedHolding(joinPoint, mine, key); // re-entrant: this thread holds the key already
        }
        if (locked.result() == LockedMethod.Result.MONO || locked.result() == LockedMethod.Result.FLUX) {
            return ReactiveLocking.lock(locked.result(), () -> acquire(locked, key),
                    () -> proceedHolding(joinPoint, this.held.get(), key));
        }
        Held lease = acquire(locked, key);
        if (lease == null) {
            return locked.skippedValue();
        }
        Object result;
        try {
            result = proceedHolding(joinPoint, mine, key);
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
        RedlockedObserver observer = this.observer.getIfAvailable();
        long start = System.nanoTime();
        RedlockLease lease;
        try {
            lease = (locked.onFailure() == OnFailure.SKIP) ? lock.tryAcquire(key, locked.ttl(), locked.waitTime()).orElse(null)
                    : lock.acquire(key, locked.ttl(), locked.waitTime());
        }
        catch (RuntimeException ex) {
            if (observer != null) {
                observer.acquisition(locked.template(), false, System.nanoTime() - start);
            }
            throw ex;
        }
        Runnable onRelease = (observer != null)
                ? observer.acquisition(locked.template(), lease != null, System.nanoTime() - start) : null;
        return (lease != null) ? new Held(lease, locked, observer, onRelease) : null;
    }

    /**
     * A lock held for an annotated call: released once, after checking whether its validity ran out while
     * the method worked (then counted as lost and logged), with the observer told of the release.
     */
    static final class Held {

        private final RedlockLease lease;

        private final LockedMethod locked;

        private final RedlockedObserver observer;

        private final Runnable onRelease;

        Held(RedlockLease lease, LockedMethod locked, RedlockedObserver observer, Runnable onRelease) {
            this.lease = lease;
            this.locked = locked;
            this.observer = observer;
            this.onRelease = onRelease;
        }

        void finish() {
            checkValidity();
            this.lease.release();
            ended();
        }

        CompletableFuture<Boolean> finishAsync() {
            checkValidity();
            return this.lease.releaseAsync().whenComplete((released, failure) -> ended());
        }

        private void checkValidity() {
            if (!this.lease.isValid()) {
                if (this.observer != null) {
                    this.observer.lost(this.locked.template());
                }
                logger.error("Lock '" + this.lease.key() + "' expired while " + this.locked.description() + " still ran ("
                        + "ttl " + this.locked.ttl() + "); another caller may have run at the same time. Give it a longer ttl.");
            }
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

    private static Object proceedHolding(ProceedingJoinPoint joinPoint, Map<String, Integer> held, String key)
            throws Throwable {
        held.merge(key, 1, Integer::sum);
        try {
            return joinPoint.proceed();
        }
        finally {
            if (held.merge(key, -1, Integer::sum) == 0) {
                held.remove(key);
            }
        }
    }

}
