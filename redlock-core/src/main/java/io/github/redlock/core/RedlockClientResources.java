package io.github.redlock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Lettuce resources (event loops, timer) as Redlock needs them: a timer that ticks every
 * {@linkplain #TIMER_TICK 10 ms}, so that node timeouts of tens of ms fire on time (Lettuce's own ticks every
 * 100 ms), and reconnects that start after 20 ms. Closing it shuts down the resources and the timer. A
 * {@link Redlock} creates its own unless it is given resources ({@link Redlock.Builder#clientResources}); the
 * Spring Boot starter shares one instance among every node's connection factory.
 */
public final class RedlockClientResources implements AutoCloseable {

    /** How often the timer that fires node timeouts ticks. */
    public static final Duration TIMER_TICK = Duration.ofMillis(10);

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

    private final HashedWheelTimer timer;

    private final ClientResources resources;

    private RedlockClientResources(HashedWheelTimer timer, ClientResources resources) {
        this.timer = timer;
        this.resources = resources;
    }

    /**
     * Creates the resources with Redlock's timer and reconnect delay.
     * @return the resources, to be closed when no longer used
     */
    public static RedlockClientResources create() {
        return create((builder) -> {
        });
    }

    /**
     * Creates the resources with Redlock's timer and reconnect delay, then lets {@code customizer} change the
     * builder (e.g. thread pool sizes or tracing; replacing the timer gives up precise node timeouts).
     * @param customizer changes the builder before the resources are built
     * @return the resources, to be closed when no longer used
     */
    public static RedlockClientResources create(Consumer<DefaultClientResources.Builder> customizer) {
        HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("redlock-timer", true), TIMER_TICK.toMillis(),
                TimeUnit.MILLISECONDS);
        try {
            DefaultClientResources.Builder builder = DefaultClientResources.builder()
                    .timer(timer)
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(20), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS));
            customizer.accept(builder);
            return new RedlockClientResources(timer, builder.build());
        }
        catch (RuntimeException ex) {
            timer.stop();
            throw ex;
        }
    }

    /**
     * Returns the Lettuce resources.
     * @return the resources
     */
    public ClientResources resources() {
        return this.resources;
    }

    /**
     * Shuts down the resources and stops the timer, waiting up to two seconds. Never throws.
     */
    @Override
    public void close() {
        try {
            this.resources.shutdown(0, CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        finally {
            this.timer.stop();
        }
    }

}
