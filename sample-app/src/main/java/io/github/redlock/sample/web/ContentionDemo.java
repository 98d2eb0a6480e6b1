package io.github.redlock.sample.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.sample.orders.OrderService;
import io.github.redlock.sample.orders.PaymentGateway;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.stereotype.Component;

/**
 * Fires many concurrent payments of one new order and reports what happened: one charge, the other calls
 * answered with the same receipt after waiting for the lock (or refused if they waited too long), and the
 * lock's metrics for the run.
 */
@Component
public class ContentionDemo {

    /** The metrics' name of the payment lock: the annotation's key template as written. */
    static final String PAYMENT_LOCK = "order:#{#orderId}";

    private final AtomicInteger runs = new AtomicInteger();

    private final OrderService orders;

    private final PaymentGateway gateway;

    private final MeterRegistry meters;

    ContentionDemo(OrderService orders, PaymentGateway gateway, MeterRegistry meters) {
        this.orders = orders;
        this.gateway = gateway;
        this.meters = meters;
    }

    /**
     * Pays one new order from {@code payments} threads at once.
     * @param payments how many concurrent payments, 1 to 200
     * @return what happened
     * @throws IllegalArgumentException if {@code payments} is out of range
     */
    public Report run(int payments) throws Exception {
        if (payments < 1 || payments > 200) {
            throw new IllegalArgumentException("payments must be between 1 and 200, was " + payments);
        }
        String orderId = "demo-" + this.runs.incrementAndGet();
        Counts before = counts();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(payments, payments, 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(payments));
        long start = System.nanoTime();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < payments; i++) {
                calls.add(pool.submit(() -> {
                    go.await();
                    try {
                        return this.orders.pay(orderId, 1999).repeated() ? "repeated" : "charged";
                    }
                    catch (RedlockAcquisitionException ex) {
                        return "refused";
                    }
                }));
            }
            go.countDown();
            int charged = 0;
            int repeated = 0;
            int refused = 0;
            for (Future<String> call : calls) {
                switch (call.get(60, TimeUnit.SECONDS)) {
                    case "charged" -> charged++;
                    case "repeated" -> repeated++;
                    default -> refused++;
                }
            }
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Counts after = counts();
            long acquired = after.acquired - before.acquired;
            double meanWaitMillis = (acquired + after.failed - before.failed > 0)
                    ? (after.totalMillis - before.totalMillis) / (acquired + after.failed - before.failed) : 0;
            return new Report(orderId, payments, charged, repeated, refused, this.gateway.charges(orderId), elapsedMillis,
                    new LockMetrics(PAYMENT_LOCK, acquired, after.failed - before.failed, Math.round(meanWaitMillis * 10) / 10.0));
        }
        finally {
            pool.shutdownNow();
        }
    }

    private Counts counts() {
        Timer acquired = this.meters.find("redlock.acquire").tag("lock", PAYMENT_LOCK).tag("outcome", "acquired").timer();
        Timer failed = this.meters.find("redlock.acquire").tag("lock", PAYMENT_LOCK).tag("outcome", "failed").timer();
        double total = ((acquired != null) ? acquired.totalTime(TimeUnit.MILLISECONDS) : 0)
                + ((failed != null) ? failed.totalTime(TimeUnit.MILLISECONDS) : 0);
        return new Counts((acquired != null) ? acquired.count() : 0, (failed != null) ? failed.count() : 0, total);
    }

    private record Counts(long acquired, long failed, double totalMillis) {
    }

    /**
     * What one run of the demo did.
     *
     * @param orderId the order paid
     * @param payments concurrent payment calls
     * @param charged calls that charged the card
     * @param repeated calls that found the order paid and returned its receipt
     * @param refused calls that gave up waiting for the lock
     * @param charges charges the processor recorded for the order: 1 when the lock works
     * @param elapsedMillis the run's duration
     * @param lock the {@code redlock.acquire} figures of this run
     */
    public record Report(String orderId, int payments, int charged, int repeated, int refused, int charges, long elapsedMillis,
            LockMetrics lock) {
    }

    /**
     * The lock's metrics for one run.
     *
     * @param name the lock's name in the metrics (its key template)
     * @param acquired acquisitions that got the lock
     * @param failed acquisitions that gave up
     * @param meanWaitMillis mean time to acquire (or give up), waiting included
     */
    public record LockMetrics(String name, long acquired, long failed, double meanWaitMillis) {
    }

}
