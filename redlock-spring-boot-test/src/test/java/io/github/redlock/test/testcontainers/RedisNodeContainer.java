package io.github.redlock.test.testcontainers;

import io.github.redlock.test.RedisNode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis} container as Spring Boot and the service connection see it, run as a local {@code redis-server}
 * process instead of in Docker, which this machine may lack: the host is the loopback address and the container's
 * port 6379 is mapped to the node's port. The Redis behind it is real; only Docker's part is stood in for.
 */
class RedisNodeContainer extends GenericContainer<RedisNodeContainer> {

    private volatile RedisNode node;

    RedisNodeContainer() {
        super(DockerImageName.parse("redis:7.4-alpine"));
    }

    @Override
    public void start() {
        if (this.node == null) {
            this.node = RedisNode.start();
        }
    }

    @Override
    public void stop() {
        RedisNode current = this.node;
        this.node = null;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public boolean isRunning() {
        RedisNode current = this.node;
        return current != null && current.isRunning();
    }

    @Override
    public String getDockerImageName() {
        return "redis:7.4-alpine";
    }

    @Override
    public String getHost() {
        return "127.0.0.1";
    }

    @Override
    public Integer getMappedPort(int originalPort) {
        RedisNode current = this.node;
        if (originalPort != 6379 || current == null) {
            throw new IllegalStateException("Only port 6379 of a started container is mapped, not " + originalPort);
        }
        return current.port();
    }

    /**
     * Returns the node, to fault it.
     * @return the running node
     */
    RedisNode node() {
        return this.node;
    }

}
