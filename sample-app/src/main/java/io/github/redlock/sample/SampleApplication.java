package io.github.redlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An order service run as several instances over the same five Redis masters, in which four things must
 * each happen once at a time across all instances: paying an order, replacing the price list (while
 * reads share it), the nightly settlement, and a long catalog rebuild. Each is a {@code @Redlocked} method.
 * The outbox relay runs on the elected leader only, and another instance takes over when the leader ends.
 * A ledger of account balances in a database (H2) shows fencing: its changes are {@code @Redlocked(fenced = true)},
 * and the database refuses the commit of a holder whose token is stale.
 * Run it with local nodes: {@code ./mvnw -pl sample-app -am spring-boot:test-run}.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    /**
     * Starts the application.
     * @param args command-line arguments, e.g. {@code --redlock.nodes=redis://127.0.0.1:7001,…}
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

}
