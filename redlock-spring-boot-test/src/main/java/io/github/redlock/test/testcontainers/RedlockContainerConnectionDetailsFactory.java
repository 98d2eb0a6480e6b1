package io.github.redlock.test.testcontainers;

import java.util.List;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@link ContainerConnectionDetailsFactory} of {@link RedlockConnectionDetails} from one
 * {@code @ServiceConnection("redlock")} container, a node of its own. Spring Boot keeps one connection details bean
 * per type, the first container's, and ignores the others: so {@link RedlockContainersContextCustomizerFactory}
 * (fields) and {@link RedlockServiceConnectionAutoConfiguration} (beans) register one bean for all the containers
 * first, and this factory's results are then skipped. It is registered all the same so that Spring Boot finds a
 * factory for a container of that name, instead of failing the context.
 */
class RedlockContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, RedlockConnectionDetails> {

    RedlockContainerConnectionDetailsFactory() {
        super(RedlockServiceConnections.NAME);
    }

    @Override
    protected RedlockConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new ContainerRedlockConnectionDetails(source);
    }

    /**
     * The connection details of one container.
     */
    private static final class ContainerRedlockConnectionDetails extends ContainerConnectionDetails<Container<?>>
            implements RedlockConnectionDetails {

        private ContainerRedlockConnectionDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public List<String> getNodes() {
            return List.of(RedlockServiceConnections.uri(getContainer()));
        }

    }

}
