package io.github.redlock.test.context;

import java.util.List;
import java.util.Map;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.test.RedisNodes;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Registers the {@link RedisNodes} bean of {@link RedlockNodes @RedlockNodes} and a {@link RedlockConnectionDetails}
 * bean that points at them. The nodes are a bean, not started here: they start during the context's refresh, and
 * the bean factory stops them when the context closes, also when its refresh failed; the {@code Redlock} depends on the connection
 * details, which depend on the nodes, so the lock is closed before its nodes stop. Two customizers are equal when
 * they start as many nodes, so that Spring's context cache lets test classes of one configuration share them.
 */
final class RedlockNodesContextCustomizer implements ContextCustomizer {

    /** The name of the {@link RedisNodes} bean. */
    static final String NODES_BEAN_NAME = "redlockTestNodes";

    private static final String CONNECTION_DETAILS_BEAN_NAME = "redlockTestNodesConnectionDetails";

    private static final String DEFAULTS_PROPERTY_SOURCE_NAME = "redlockTestNodesDefaults";

    private final int count;

    RedlockNodesContextCustomizer(int count) {
        this.count = count;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (!(beanFactory instanceof BeanDefinitionRegistry registry)) {
            throw new IllegalStateException("@RedlockNodes needs an application context whose bean factory accepts bean "
                    + "definitions; " + beanFactory.getClass().getName() + " does not");
        }
        int nodeCount = this.count;
        RootBeanDefinition nodes = new RootBeanDefinition(RedisNodes.class, () -> RedisNodes.start(nodeCount));
        nodes.setDestroyMethodName("close");
        registry.registerBeanDefinition(NODES_BEAN_NAME, nodes);
        RootBeanDefinition connectionDetails = new RootBeanDefinition(RedlockConnectionDetails.class,
                () -> new NodesConnectionDetails(beanFactory.getBean(NODES_BEAN_NAME, RedisNodes.class)));
        connectionDetails.setDependsOn(NODES_BEAN_NAME);
        registry.registerBeanDefinition(CONNECTION_DETAILS_BEAN_NAME, connectionDetails);
        // Last: every property source of the test and the application comes first.
        context.getEnvironment().getPropertySources().addLast(new MapPropertySource(DEFAULTS_PROPERTY_SOURCE_NAME,
                Map.of("redlock.restart-quarantine", "never")));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedlockNodesContextCustomizer customizer && customizer.count == this.count;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(this.count);
    }

    @Override
    public String toString() {
        return "@RedlockNodes(count = " + this.count + ")";
    }

    /**
     * The connection details of the nodes, in start order.
     */
    private record NodesConnectionDetails(RedisNodes nodes) implements RedlockConnectionDetails {

        @Override
        public List<String> getNodes() {
            return this.nodes.uris();
        }

    }

}
