package io.github.redlock.test.testcontainers;

import java.time.Duration;
import java.util.List;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three {@code @ServiceConnection("redlock")} container beans, as a development-time application declares them, are
 * three nodes of one Redlock; a container bean without that name is not a node. The containers run without Docker
 * ({@link RedisNodeContainer}); Spring Boot's Testcontainers lifecycle starts them and stops them with the context.
 */
@SpringBootTest
@DirtiesContext
class RedlockServiceConnectionBeansIntegrationTests {

    @Autowired
    private ApplicationContext context;

    @Autowired
    private Redlock redlock;

    @Autowired
    private List<RedisNodeContainer> containers;

    @Test
    void gathersEveryRedlockContainerBeanIntoOneNodeList() {
        assertThat(this.containers).hasSize(4);
        List<String> nodeUris = this.containers.stream().filter((container) -> container != this.context.getBean("notANode"))
                .map((container) -> container.node().uri()).toList();
        assertThat(this.context.getBeansOfType(RedlockConnectionDetails.class).values()).singleElement()
                .satisfies((details) -> assertThat(details.getNodes()).containsExactlyInAnyOrderElementsOf(nodeUris));
    }

    @Test
    void locksOnTheContainers() {
        assertThat(this.redlock.nodeStatuses()).hasSize(3);
        try (RedlockLease lease = this.redlock.tryAcquire("container:2", Duration.ofSeconds(30)).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Containers {

        @Bean(destroyMethod = "stop")
        @ServiceConnection("redlock")
        RedisNodeContainer first() {
            return new RedisNodeContainer();
        }

        @Bean(destroyMethod = "stop")
        @ServiceConnection("redlock")
        RedisNodeContainer second() {
            return new RedisNodeContainer();
        }

        @Bean(destroyMethod = "stop")
        @ServiceConnection("redlock")
        RedisNodeContainer third() {
            return new RedisNodeContainer();
        }

        @Bean(destroyMethod = "stop")
        RedisNodeContainer notANode() {
            return new RedisNodeContainer();
        }

    }

}
