package io.github.redlock.test.testcontainers;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.testcontainers.beans.TestcontainerBeanDefinition;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the connection details of {@link RedlockServiceConnectionAutoConfiguration}: one node per
 * {@code @ServiceConnection("redlock")} container bean, in bean registration order. The bean depends on the
 * containers, so that they are started (by Spring Boot's Testcontainers lifecycle) before the lock connects, and
 * stopped after it closed. Does nothing when a {@link RedlockConnectionDetails} bean is defined already.
 */
class RedlockServiceConnectionRegistrar implements ImportBeanDefinitionRegistrar {

    private final BeanFactory beanFactory;

    RedlockServiceConnectionRegistrar(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        if (!(this.beanFactory instanceof ConfigurableListableBeanFactory beanFactory)
                || beanFactory.getBeanNamesForType(RedlockConnectionDetails.class).length > 0) {
            return;
        }
        List<String> names = new ArrayList<>();
        for (String name : beanFactory.getBeanNamesForType(Container.class)) {
            if (serviceConnections(beanFactory, name).anyMatch(RedlockServiceConnections::isNode)) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            return;
        }
        List<Supplier<? extends Container<?>>> containers = names.stream()
                .<Supplier<? extends Container<?>>>map((name) -> () -> beanFactory.getBean(name, Container.class)).toList();
        RootBeanDefinition connectionDetails = new RootBeanDefinition(ContainersRedlockConnectionDetails.class,
                () -> new ContainersRedlockConnectionDetails(containers));
        connectionDetails.setDependsOn(names.toArray(String[]::new));
        registry.registerBeanDefinition(RedlockContainersContextCustomizer.BEAN_NAME, connectionDetails);
    }

    private Stream<ServiceConnection> serviceConnections(ConfigurableListableBeanFactory beanFactory, String name) {
        Stream<ServiceConnection> onBean = beanFactory.findAllAnnotationsOnBean(name, ServiceConnection.class, false).stream();
        // A container field of @ImportTestcontainers: its annotations are on the field, held by the definition.
        BeanDefinition definition = beanFactory.containsBeanDefinition(name) ? beanFactory.getBeanDefinition(name) : null;
        if (definition instanceof TestcontainerBeanDefinition testcontainer) {
            return Stream.concat(onBean, testcontainer.getAnnotations().stream(ServiceConnection.class)
                    .map(MergedAnnotation::synthesize));
        }
        return onBean;
    }

}
