package io.github.redlock.test.testcontainers;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.Order;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Gathers the static {@code @ServiceConnection("redlock")} container fields of a test class (its superclasses,
 * interfaces and, for {@code @Nested} classes, enclosing classes, as Spring Boot searches them) into one
 * {@code RedlockConnectionDetails} bean. Ordered first, so that its bean exists before Spring Boot's own
 * customizer registers one connection details bean per type, and Spring Boot skips its single-container one.
 * Registered in {@code META-INF/spring.factories}; does nothing without Spring Boot's Testcontainers support.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class RedlockContainersContextCustomizerFactory implements ContextCustomizerFactory {

    private static final boolean TESTCONTAINERS_PRESENT = ClassUtils.isPresent(
            "org.springframework.boot.testcontainers.service.connection.ServiceConnection",
            RedlockContainersContextCustomizerFactory.class.getClassLoader());

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        if (!TESTCONTAINERS_PRESENT) {
            return null;
        }
        List<Container<?>> containers = new ArrayList<>();
        collect(testClass, containers);
        return containers.isEmpty() ? null : new RedlockContainersContextCustomizer(containers);
    }

    private void collect(@Nullable Class<?> candidate, List<Container<?>> containers) {
        if (candidate == null || candidate == Object.class) {
            return;
        }
        ReflectionUtils.doWithLocalFields(candidate, (field) -> {
            boolean node = MergedAnnotations.from(field).stream(ServiceConnection.class)
                    .anyMatch((annotation) -> RedlockServiceConnections.isNode(annotation.synthesize()));
            if (node && Modifier.isStatic(field.getModifiers()) && value(field) instanceof Container<?> container
                    && !containers.contains(container)) {
                containers.add(container);
            }
            // A field Spring Boot refuses (not static, not a container) fails in Spring Boot's own customizer.
        });
        if (TestContextAnnotationUtils.searchEnclosingClass(candidate)) {
            collect(candidate.getEnclosingClass(), containers);
        }
        for (Class<?> implemented : candidate.getInterfaces()) {
            collect(implemented, containers);
        }
        collect(candidate.getSuperclass(), containers);
    }

    private static @Nullable Object value(Field field) {
        ReflectionUtils.makeAccessible(field);
        return ReflectionUtils.getField(field, null);
    }

}
