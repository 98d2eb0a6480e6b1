package io.github.redlock.sample.settlement;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;

/**
 * The nightly settlement. Every instance schedules it; the lock lets one run it and the others skip it
 * quietly ({@code onFailure = SKIP}), with no error and no wait.
 */
@Service
public class Settlement {

    private static final Log logger = LogFactory.getLog(Settlement.class);

    private final AtomicInteger runs = new AtomicInteger();

    /**
     * Settles the day, unless another instance is settling it.
     * @return the report, or empty when another instance holds the settlement
     */
    @Redlocked(key = "nightly-settlement", ttl = "30s", autoExtend = true, maxHold = "30m", onFailure = OnFailure.SKIP)
    public Optional<Report> settle() {
        int run = this.runs.incrementAndGet();
        logger.info("Settling the day (run " + run + " on this instance)");
        try {
            Thread.sleep(200); // the settlement's work
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return Optional.of(new Report(run, Instant.now()));
    }

    /**
     * A finished settlement.
     *
     * @param run how many settlements this instance ran
     * @param settledAt when it finished
     */
    public record Report(int run, Instant settledAt) {
    }

}
