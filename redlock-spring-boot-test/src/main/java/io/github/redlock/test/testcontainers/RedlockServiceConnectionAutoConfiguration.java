package io.github.redlock.test.testcontainers;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of one {@link RedlockConnectionDetails} bean for every
 * {@link Container} bean annotated with {@code @ServiceConnection("redlock")}, e.g. in a test configuration or in a
 * development-time application run with {@code SpringApplication.from(…).with(…)}. It runs before Spring Boot's
 * {@link ServiceConnectionAutoConfiguration}, which keeps one connection details bean per type and would otherwise
 * register the first container alone.
 */
@AutoConfiguration(before = { ServiceConnectionAutoConfiguration.class, RedlockAutoConfiguration.class })
@ConditionalOnClass({ ServiceConnection.class, Container.class, RedlockConnectionDetails.class })
@Import(RedlockServiceConnectionRegistrar.class)
public final class RedlockServiceConnectionAutoConfiguration {

    RedlockServiceConnectionAutoConfiguration() {
    }

}
