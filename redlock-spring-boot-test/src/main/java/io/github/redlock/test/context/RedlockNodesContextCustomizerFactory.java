package io.github.redlock.test.context;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives the application context of a test class annotated with {@link RedlockNodes @RedlockNodes} its nodes.
 * Registered in {@code META-INF/spring.factories}.
 */
class RedlockNodesContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        RedlockNodes annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, RedlockNodes.class);
        if (annotation == null) {
            return null;
        }
        if (annotation.count() < 1) {
            throw new IllegalStateException("@RedlockNodes on " + testClass.getName() + " asks for " + annotation.count()
                    + " nodes; ask for at least 1, e.g. @RedlockNodes(count = 3)");
        }
        return new RedlockNodesContextCustomizer(annotation.count());
    }

}
