package io.github.redlock.sample;

import java.util.List;
import java.util.stream.IntStream;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.sample.orders.OrderService;
import io.github.redlock.sample.orders.PaymentGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How to test an application that uses the starter with Testcontainers: five {@code redis} containers, and a
 * {@link RedlockConnectionDetails} bean pointing at them, which takes the place of {@code redlock.nodes}.
 * Skipped where no Docker engine is available.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest
class SampleApplicationContainerIntegrationTests {

    private static List<GenericContainer<?>> nodes = List.of();

    @BeforeAll
    static void startNodes() {
        nodes = IntStream.range(0, 5)
                .<GenericContainer<?>>mapToObj((i) -> new GenericContainer<>(DockerImageName.parse("redis:7.4-alpine"))
                        .withExposedPorts(6379))
                .toList();
        Startables.deepStart(nodes).join();
    }

    @AfterAll
    static void stopNodes() {
        nodes.forEach(GenericContainer::stop);
    }

    @Autowired
    private OrderService orders;

    @Autowired
    private PaymentGateway gateway;

    @Test
    void paysAnOrderOnceOnFiveContainers() {
        assertThat(this.orders.pay("tc-1", 1999).repeated()).isFalse();
        assertThat(this.orders.pay("tc-1", 1999).repeated()).isTrue();
        assertThat(this.gateway.charges("tc-1")).isEqualTo(1);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class ContainerNodes {

        @Bean
        RedlockConnectionDetails redlockConnectionDetails() {
            return () -> nodes.stream().map((node) -> "redis://" + node.getHost() + ":" + node.getMappedPort(6379)).toList();
        }

    }

}
