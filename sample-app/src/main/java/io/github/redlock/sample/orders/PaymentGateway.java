package io.github.redlock.sample.orders;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * A stand-in for a card processor: each charge takes a while and really happens, so a duplicate payment is a
 * duplicate charge. Counts the charges per order.
 */
@Component
public class PaymentGateway {

    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

    /**
     * Charges the customer for an order.
     * @param orderId the order
     * @param amountCents the amount
     * @return the receipt
     */
    public Receipt charge(String orderId, long amountCents) {
        try {
            Thread.sleep(25); // the processor's round trip
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while charging order " + orderId, ex);
        }
        this.charges.computeIfAbsent(orderId, (id) -> new AtomicInteger()).incrementAndGet();
        return new Receipt(orderId, amountCents, UUID.randomUUID().toString(), Instant.now(), false);
    }

    /**
     * Returns how many times an order was charged.
     * @param orderId the order
     * @return the number of charges
     */
    public int charges(String orderId) {
        AtomicInteger count = this.charges.get(orderId);
        return (count != null) ? count.get() : 0;
    }

}
