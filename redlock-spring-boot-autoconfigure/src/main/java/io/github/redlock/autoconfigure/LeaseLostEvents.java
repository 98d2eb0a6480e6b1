package io.github.redlock.autoconfigure;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.event.RedlockLeaseLostEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Publishes a {@link RedlockLeaseLostEvent} for every lost lease, on a thread of its own: the loss is
 * reported on the lock's timer or I/O threads, which a slow listener must not hold up. At most
 * {@value #QUEUE_SIZE} events wait; beyond that an event is dropped with a warning (the loss itself is
 * logged by the lease, and counted). Stops publishing as the context closes: the leases its {@code Redlock} still
 * holds are then lost by the close itself, and the listeners are going.
 */
final class LeaseLostEvents implements RedlockObserver, ApplicationListener<ContextClosedEvent>, ApplicationContextAware, AutoCloseable {

    static final int QUEUE_SIZE = 1024;

    static final String THREAD_NAME = "redlock-lease-lost-events";

    private static final Log logger = LogFactory.getLog(LeaseLostEvents.class);

    private final ApplicationEventPublisher publisher;

    private final ThreadPoolExecutor executor;

    private volatile @Nullable ApplicationContext context;

    /** Publishes on a platform thread of its own. */
    LeaseLostEvents(ApplicationEventPublisher publisher) {
        this(publisher, (task) -> {
            Thread thread = new Thread(task, THREAD_NAME);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Publishes on a thread that {@code threads} makes: a virtual one when the application runs on virtual threads
     * ({@code spring.threads.virtual.enabled=true}), since the listeners are the application's code.
     */
    LeaseLostEvents(ApplicationEventPublisher publisher, ThreadFactory threads) {
        this.publisher = publisher;
        this.executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE_SIZE), threads, (task, pool) -> {
            if (!pool.isShutdown()) { // after the shutdown: the context is closing, and its listeners with it
                logger.warn("Dropped a RedlockLeaseLostEvent: " + QUEUE_SIZE + " events are waiting for slow listeners");
            }
        });
        this.executor.allowCoreThreadTimeOut(true);
    }

    @Override
    public void leaseLost(RedlockLease lease, String reason) {
        this.executor.execute(() -> {
            try {
                this.publisher.publishEvent(new RedlockLeaseLostEvent(lease, reason));
            }
            catch (RuntimeException ex) {
                logger.warn("A RedlockLeaseLostEvent listener failed for the lock '" + lease.key() + "'", ex);
            }
        });
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == this.context) { // not a child context's close
            this.executor.shutdown();
        }
    }

    /** Stops publishing; events still waiting are published within a second, the rest dropped. */
    @Override
    public void close() throws InterruptedException {
        this.executor.shutdown();
        this.executor.awaitTermination(1, TimeUnit.SECONDS);
    }

}
