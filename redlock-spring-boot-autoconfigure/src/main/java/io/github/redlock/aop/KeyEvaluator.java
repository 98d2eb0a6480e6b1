package io.github.redlock.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

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

    /**
     * The call's keys: its one key, or the keys of a lock on several keys without duplicates and sorted; throws
     * an error naming the method and the template when a part is null or a key empty.
     * @param args the call's arguments as the proxy received them: a suspend function's end with its
     * {@code Continuation}, which Spring's evaluation context drops itself ({@code #root.args} is without it)
     */
    List<String> evaluate(LockedMethod locked, Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
        List<KeyTemplate> templates = locked.keys();
        if (templates.size() == 1) {
            KeyTemplate template = templates.get(0);
            return List.of(template.evaluate(template.isLiteral() ? null : context(locked, method, args, target, targetClass),
                    locked.description()));
        }
        MethodBasedEvaluationContext context = null; // made once, for the first template that needs it
        TreeSet<String> keys = new TreeSet<>();
        for (KeyTemplate template : templates) {
            if (context == null && !template.isLiteral()) {
                context = context(locked, method, args, target, targetClass);
            }
            keys.add(template.evaluate(context, locked.description()));
        }
        return List.copyOf(keys);
    }

    private MethodBasedEvaluationContext context(LockedMethod locked, Method method, @Nullable Object[] args, Object target,
            Class<?> targetClass) {
        @Nullable Object[] values = locked.result().suspending() ? Arrays.copyOf(args, args.length - 1) : args;
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new RedlockedRoot(method, values, target, targetClass), method, args, this.parameterNames);
        context.setBeanResolver(this.beanResolver);
        return context;
    }

    /** Parameter names, discovered once per method instead of on every key evaluation. */
    private static final class CachingParameterNames implements ParameterNameDiscoverer {

        private static final String[] UNKNOWN = new String[0];

        private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

        private final Map<Method, String[]> names = new ConcurrentHashMap<>();

        @Override
        public String @Nullable [] getParameterNames(Method method) {
            String[] found = this.names.computeIfAbsent(method, (key) -> {
                String[] discovered = this.discoverer.getParameterNames(key);
                return (discovered != null) ? discovered : UNKNOWN;
            });
            return (found != UNKNOWN) ? found : null;
        }

        @Override
        public String @Nullable [] getParameterNames(Constructor<?> constructor) {
            return this.discoverer.getParameterNames(constructor);
        }

    }

}
