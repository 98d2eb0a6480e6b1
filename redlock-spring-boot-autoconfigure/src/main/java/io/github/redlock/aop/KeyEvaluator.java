package io.github.redlock.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * Evaluates the key of one call of a {@code @Redlocked} method: its parsed template against the call's
 * arguments (by name, {@code #p0}, {@code #a0}), {@code #root} and beans ({@code @name}). Literal keys cost
 * nothing; parameter names are discovered once per method.
 */
final class KeyEvaluator {

    private final ParameterNameDiscoverer parameterNames = new CachingParameterNames();

    private final BeanFactoryResolver beanResolver;

    KeyEvaluator(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    /** The call's key; throws an error naming the method and the template when a part is null or the key empty. */
    String evaluate(LockedMethod locked, Method method, Object[] args, Object target, Class<?> targetClass) {
        if (locked.key().isLiteral()) {
            return locked.key().evaluate(null, locked.description());
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new RedlockedRoot(method, args, target, targetClass), method, args, this.parameterNames);
        context.setBeanResolver(this.beanResolver);
        return locked.key().evaluate(context, locked.description());
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

}
