package io.github.redlock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The {@code #root} object of a {@code @Redlocked} key expression: {@code #root.method},
 * {@code #root.methodName}, {@code #root.args}, {@code #root.target}, {@code #root.targetClass}.
 */
final class RedlockedRoot {

    private final Method method;

    private final @Nullable Object[] args;

    private final Object target;

    private final Class<?> targetClass;

    RedlockedRoot(Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    public Method getMethod() {
        return this.method;
    }

    public String getMethodName() {
        return this.method.getName();
    }

    public @Nullable Object[] getArgs() {
        return this.args;
    }

    public Object getTarget() {
        return this.target;
    }

    public Class<?> getTargetClass() {
        return this.targetClass;
    }

}
