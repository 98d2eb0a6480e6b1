package io.github.redlock.sample;

import java.time.Duration;
import java.util.List;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The sample application: takes a lock over the configured nodes at start-up and reports it. Until the
 * starter's auto-configuration exists it builds the {@link Redlock} itself from {@code redlock.nodes}.
 */
@SpringBootApplication
public class SampleApplication {

    private static final Log logger = LogFactory.getLog(SampleApplication.class);

    /**
     * Starts the application.
     * @param args command-line arguments, e.g. {@code --redlock.nodes=redis://127.0.0.1:7001,…}
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    @Bean(destroyMethod = "close")
    Redlock redlock(Environment environment) {
        List<String> nodes = Binder.get(environment).bind("redlock.nodes", Bindable.listOf(String.class)).orElse(List.of());
        return Redlock.builder().nodes(nodes).build();
    }

    @Bean
    ApplicationRunner settlement(Redlock redlock) {
        return (args) -> {
            try (RedlockLease lease = redlock.acquire("settlement", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                logger.info("Holding lock '" + lease.key() + "', valid for another " + lease.remainingValidity().toMillis()
                        + " ms; only one instance runs the settlement now");
            }
        };
    }

}
