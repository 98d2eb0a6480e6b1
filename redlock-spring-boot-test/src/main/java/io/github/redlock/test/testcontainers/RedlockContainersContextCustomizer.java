package io.github.redlock.test.testcontainers;

import java.util.List;
import java.util.function.Supplier;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Registers one {@link RedlockConnectionDetails} bean for the {@code @ServiceConnection("redlock")} container fields
 * of a test class. Two customizers are equal when they hold the same containers, so that test classes that share
 * container fields (e.g. from a common superclass) share one application context.
 */
final class RedlockContainersContextCustomizer implements ContextCustomizer {

    /** The name of the connection details bean. */
    static final String BEAN_NAME = "redlockConnectionDetailsForContainers";

    private final List<Container<?>> containers;

    RedlockContainersContextCustomizer(List<Container<?>> containers) {
        this.containers = List.copyOf(containers);
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory instanceof BeanDefinitionRegistry registry) {
            List<Supplier<? extends Container<?>>> suppliers = this.containers.stream()
                    .<Supplier<? extends Container<?>>>map((container) -> () -> container).toList();
            registry.registerBeanDefinition(BEAN_NAME, new RootBeanDefinition(ContainersRedlockConnectionDetails.class,
                    () -> new ContainersRedlockConnectionDetails(suppliers)));
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedlockContainersContextCustomizer customizer
                && customizer.containers.equals(this.containers);
    }

    @Override
    public int hashCode() {
        return this.containers.hashCode();
    }

}
