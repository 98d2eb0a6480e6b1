package io.github.redlock.test.testcontainers;

import java.util.List;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * What makes a container one of the lock's nodes: {@code @ServiceConnection("redlock")}, without a {@code type} or
 * with one that admits {@link RedlockConnectionDetails}, as Spring Boot's {@code ContainerConnectionSource} matches.
 * A node's URI is {@code redis://host:port}, with the host port mapped to the container's port 6379.
 */
final class RedlockServiceConnections {

    /** The connection name that marks a Redis container as a node of the lock. */
    static final String NAME = "redlock";

    private static final int REDIS_PORT = 6379;

    private RedlockServiceConnections() {
    }

    static boolean isNode(ServiceConnection serviceConnection) {
        return NAME.equalsIgnoreCase(serviceConnection.name()) && admitsRedlock(List.of(serviceConnection.type()));
    }

    private static boolean admitsRedlock(List<Class<?>> types) {
        return types.isEmpty() || types.stream().anyMatch((type) -> type.isAssignableFrom(RedlockConnectionDetails.class));
    }

    static String uri(Container<?> container) {
        return "redis://" + container.getHost() + ":" + container.getMappedPort(REDIS_PORT);
    }

}
