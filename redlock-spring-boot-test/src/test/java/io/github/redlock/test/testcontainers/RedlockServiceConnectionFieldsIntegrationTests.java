package io.github.redlock.test.testcontainers;

import java.time.Duration;
import java.util.List;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three {@code @ServiceConnection("redlock")} container fields are three nodes of one Redlock: Spring Boot alone
 * would keep the first container's connection details and drop the others. The containers run without Docker
 * ({@link RedisNodeContainer}); the test class does not start them, the connection details do, as Spring Boot's own do.
 */
@SpringBootTest(properties = "redlock.nodes=redis://127.0.0.1:1")
@DirtiesContext
class RedlockServiceConnectionFieldsIntegrationTests {

    @ServiceConnection("redlock")
    static final RedisNodeContainer first = new RedisNodeContainer();

    @ServiceConnection("redlock")
    static final RedisNodeContainer second = new RedisNodeContainer();

    @ServiceConnection(name = "redlock", type = RedlockConnectionDetails.class)
    static final RedisNodeContainer third = new RedisNodeContainer();

    @Autowired
    private ApplicationContext context;

    @Autowired
    private Redlock redlock;

    @AfterAll
    static void stopContainers() {
        List.of(first, second, third).forEach(RedisNodeContainer::stop);
    }

    @Test
    void gathersEveryRedlockContainerIntoOneNodeList() {
        assertThat(this.context.getBeansOfType(RedlockConnectionDetails.class).values()).singleElement()
                .satisfies((details) -> assertThat(details.getNodes()).containsExactlyInAnyOrder(uri(first), uri(second), uri(third)));
    }

    @Test
    void locksOnTheContainersAndKeepsAQuorumWhenOneIsPaused() {
        assertThat(this.redlock.nodeStatuses()).containsOnlyKeys(hostAndPort(first), hostAndPort(second), hostAndPort(third));
        second.node().pause();
        try (RedlockLease lease = this.redlock.tryAcquire("container:1", Duration.ofSeconds(30)).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
        finally {
            second.node().resume();
        }
    }

    private static String uri(RedisNodeContainer container) {
        return container.node().uri();
    }

    private static String hostAndPort(RedisNodeContainer container) {
        return container.node().hostAndPort();
    }

}
