package io.github.redlock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import kotlin.Unit;
import kotlin.coroutines.CoroutineContext;
import kotlin.reflect.KFunction;
import kotlin.reflect.KParameter;
import kotlin.reflect.jvm.ReflectJvmMapping;
import kotlinx.coroutines.reactor.MonoKt;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.aop.Advisor;
import org.springframework.aop.IntroductionAdvisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.aspectj.AspectJAroundAdvice;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.MethodMatchers;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodParameter;
import org.springframework.util.ReflectionUtils;

/**
 * The one place that goes around Spring's AOP bridge for Kotlin suspend functions. When a {@code @Redlocked} suspend
 * function is called through a proxy, Spring's AOP makes the {@code Mono} that runs its body, looking the function up
 * with Kotlin reflection on every call. Where the lock's advice is the innermost of the method's advice, proceeding
 * would only make that {@code Mono}, so {@link CoroutineLocking} makes it itself ({@link #start}), with the method
 * that {@link #method} found once per method, target class and set of advisors. Wherever another advice (a
 * transaction, a cache, a security check, anybody's aspect) runs inside the lock's, {@link #method} says null and the
 * call proceeds through Spring's AOP, so that every advice runs, in its order.
 */
final class DirectSuspendCall {

    private static final Log logger = LogFactory.getLog(DirectSuspendCall.class);

    private final RedlockedAspect aspect;

    /** The advisors of the suspend functions called through proxies, and their direct calls, by method and target class. */
    private final Map<MethodClassKey, Chain> chains = new ConcurrentHashMap<>();

    DirectSuspendCall(RedlockedAspect aspect) {
        this.aspect = aspect;
    }

    /**
     * The method to call directly ({@link #start}) in place of proceeding through Spring's AOP, or null. Only when
     * this aspect's advice is the last of the method's on its proxy (proceeding would only call the method: no other
     * advice runs in {@code proceed()}), for a suspend function that Spring's bridge would call with the arguments it
     * is given and whose result it passes on as it is: no parameter with a default value (the bridge lets a null
     * argument take the default), and a result that is neither a stream nor a Kotlin value class (which the bridge
     * boxes and unboxes). Asked of the proxy's own configuration ({@link Advised}), matched as Spring matches a call
     * to the advisors; null for a proxy that hides it, and whenever the question cannot be answered. Remembered per
     * method and target class for as long as the proxy's advisors stay the same.
     */
    @Nullable Method method(ProceedingJoinPoint joinPoint, Method method, LockedMethod locked) {
        if (locked.result() != LockedMethod.Result.SUSPEND || !(joinPoint.getThis() instanceof Advised advised)) {
            return null;
        }
        Object target = joinPoint.getTarget();
        Class<?> targetClass = (target != null) ? target.getClass() : method.getDeclaringClass();
        MethodClassKey key = new MethodClassKey(method, targetClass);
        Advisor[] advisors = advised.getAdvisors();
        Chain known = this.chains.get(key);
        if (known != null && known.sameAdvisors(advisors)) {
            return known.direct();
        }
        Method direct;
        try {
            direct = innermost(advised, advisors, method, targetClass) ? plainCall(method) : null;
        }
        catch (RuntimeException | LinkageError ex) {
            logger.debug("Calling " + method + " through Spring's AOP bridge: " + ex, ex);
            direct = null;
        }
        this.chains.put(key, new Chain(advisors, direct));
        return direct;
    }

    /**
     * Whether the last call of the suspend function on a proxy of the class went around Spring's bridge: what
     * {@link #method} said for it then. False for a function not called yet.
     */
    boolean calledDirectly(Method method, Class<?> targetClass) {
        Chain known = this.chains.get(new MethodClassKey(method, targetClass));
        return known != null && known.direct() != null;
    }

    /**
     * The {@code Mono} that runs the body of a suspend function in a coroutine of its own, with the given context,
     * when subscribed: what Spring's AOP makes when it proceeds to the method, without its per-call Kotlin reflection
     * (the method is called as a Kotlin caller calls it, with the coroutine's continuation in place of the caller's).
     * A {@code Unit} result completes it empty, as Spring's does.
     */
    static Mono<Object> start(Method method, @Nullable Object target, @Nullable Object[] args, CoroutineContext context) {
        return MonoKt.<Object>mono(context, (scope, continuation) -> {
            @Nullable Object[] call = args.clone();
            call[call.length - 1] = continuation;
            try {
                return method.invoke(target, call);
            }
            catch (InvocationTargetException ex) {
                throw DirectSuspendCall.<RuntimeException>rethrow(ex.getTargetException());
            }
            catch (IllegalAccessException ex) {
                throw new IllegalStateException("Could not call " + method + " (it was made accessible)", ex);
            }
        }).filter((result) -> result != Unit.INSTANCE);
    }

    /** Throws what the method threw, checked or not, as a Kotlin function does. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T rethrow(Throwable thrown) throws T {
        throw (T) thrown;
    }

    /**
     * Whether this aspect's advice is the last advisor that applies to the method, matched as Spring's
     * {@code DefaultAdvisorChainFactory} does, erring towards applying: a dynamic match, and a match that holds only
     * with introductions, count.
     */
    private boolean innermost(Advised advised, Advisor[] advisors, Method method, Class<?> targetClass) {
        Advisor last = null;
        for (Advisor advisor : advisors) {
            if (mayApply(advised.isPreFiltered(), advisor, method, targetClass)) {
                last = advisor;
            }
        }
        // The aspect's only advice is its @Around lock(): an around advice of this aspect instance is that one.
        return last != null && last.getAdvice() instanceof AspectJAroundAdvice around
                && around.getAspectInstanceFactory().getAspectInstance() == this.aspect;
    }

    /** Whether the advisor's advice may run in a call of the method (a proxy's advisors are pre-filtered by class). */
    private static boolean mayApply(boolean preFiltered, Advisor advisor, Method method, Class<?> targetClass) {
        if (advisor instanceof PointcutAdvisor pointcutAdvisor) {
            Pointcut pointcut = pointcutAdvisor.getPointcut();
            return (preFiltered || pointcut.getClassFilter().matches(targetClass))
                    && MethodMatchers.matches(pointcut.getMethodMatcher(), method, targetClass, true);
        }
        if (advisor instanceof IntroductionAdvisor introduction) {
            return preFiltered || introduction.getClassFilter().matches(targetClass);
        }
        return true;
    }

    /**
     * The method as Spring's AOP calls it (the bridged one, made accessible) when the bridge would pass its arguments
     * and its result on as they are, else null.
     */
    private static @Nullable Method plainCall(Method method) {
        Method bridged = BridgeMethodResolver.findBridgedMethod(method);
        KFunction<?> function = ReflectJvmMapping.getKotlinFunction(bridged);
        if (function == null || function.getParameters().stream().anyMatch(KParameter::isOptional)) {
            return null;
        }
        Class<?> result = new MethodParameter(bridged, -1).getParameterType();
        if (ReactiveLocking.adapterOf(result) != null || KotlinDetector.isInlineClass(result)) {
            return null;
        }
        ReflectionUtils.makeAccessible(bridged);
        return bridged;
    }

    /** A method's advisors as this aspect last saw them on a proxy, and the method to call directly then, or null. */
    private record Chain(Advisor[] advisors, @Nullable Method direct) {

        boolean sameAdvisors(Advisor[] others) {
            if (others.length != this.advisors.length) {
                return false;
            }
            for (int i = 0; i < others.length; i++) {
                if (others[i] != this.advisors[i]) {
                    return false;
                }
            }
            return true;
        }

    }

}
