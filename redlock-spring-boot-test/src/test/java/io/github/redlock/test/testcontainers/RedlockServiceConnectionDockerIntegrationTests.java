package io.github.redlock.test.testcontainers;

import java.time.Duration;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Testcontainers example of docs/testing.md on real {@code redis} containers. Skipped where no Docker engine is available.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest
class RedlockServiceConnectionDockerIntegrationTests {

    @Container
    @ServiceConnection("redlock")
    static final GenericContainer<?> node1 = new GenericContainer<>("redis:7.4-alpine").withExposedPorts(6379);

    @Container
    @ServiceConnection("redlock")
    static final GenericContainer<?> node2 = new GenericContainer<>("redis:7.4-alpine").withExposedPorts(6379);

    @Container
    @ServiceConnection("redlock")
    static final GenericContainer<?> node3 = new GenericContainer<>("redis:7.4-alpine").withExposedPorts(6379);

    @Autowired
    private Redlock redlock;

    @Test
    void locksOnThreeContainers() {
        assertThat(this.redlock.nodeStatuses()).hasSize(3);
        try (RedlockLease lease = this.redlock.tryAcquire("docker:1", Duration.ofSeconds(30)).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

}
