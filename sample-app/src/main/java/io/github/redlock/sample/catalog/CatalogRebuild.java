package io.github.redlock.sample.catalog;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.github.redlock.annotation.Redlocked;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * Rebuilds the search catalog, which takes minutes, and must not run twice at once across instances. Its
 * length is unknown, so the lock has a short ttl and is extended automatically while the rebuild runs, up
 * to a maximum hold of ten minutes: if the instance dies, the others can rebuild within seconds.
 */
@Service
public class CatalogRebuild {

    private static final Log logger = LogFactory.getLog(CatalogRebuild.class);

    private final Executor executor;

    /**
     * Creates the service.
     * @param executor runs the rebuilds in the background
     */
    public CatalogRebuild(@Qualifier("applicationTaskExecutor") Executor executor) {
        this.executor = executor;
    }

    /**
     * Starts a rebuild unless one runs anywhere: the lock is taken now (a single attempt) and held, extended
     * every 2.5 s, until the returned future completes.
     * @param duration how long this rebuild takes
     * @return the rebuild's outcome, when done
     * @throws io.github.redlock.core.RedlockAcquisitionException when a rebuild runs already
     */
    @Redlocked(key = "catalog-rebuild", ttl = "5s", waitTime = "0s", autoExtend = true, maxHold = "10m")
    public CompletableFuture<Result> rebuild(Duration duration) {
        Instant started = Instant.now();
        logger.info("Rebuilding the catalog for " + duration.toSeconds() + " s under lock 'catalog-rebuild'");
        return CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(duration.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            logger.info("Catalog rebuilt");
            return new Result(started, Instant.now());
        }, this.executor);
    }

    /**
     * A finished rebuild.
     *
     * @param started when it started
     * @param finished when it finished
     */
    public record Result(Instant started, Instant finished) {
    }

}
