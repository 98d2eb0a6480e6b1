package io.github.redlock.sample.settlement;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Triggers the settlement on every instance at {@code sample.settlement.cron} (02:00 by default); the lock
 * decides which one runs it.
 */
@Component
public class NightlySettlementJob {

    private static final Log logger = LogFactory.getLog(NightlySettlementJob.class);

    private final Settlement settlement;

    NightlySettlementJob(Settlement settlement) {
        this.settlement = settlement;
    }

    @Scheduled(cron = "${sample.settlement.cron:0 0 2 * * *}")
    void run() {
        if (this.settlement.settle().isEmpty()) {
            logger.info("Another instance is settling the day; skipped here");
        }
    }

}
