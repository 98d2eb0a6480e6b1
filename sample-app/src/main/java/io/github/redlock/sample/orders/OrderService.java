package io.github.redlock.sample.orders;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redlock.annotation.Redlocked;

import org.springframework.stereotype.Service;

/**
 * Pays orders. Paying is check-then-act ("paid already? if not, charge"), which double-charges when two
 * requests for one order run at once, on one instance or on two. The per-order lock makes the check and
 * the charge one step across every instance; other orders are not held up.
 */
@Service
public class OrderService {

    private final Map<String, Receipt> receipts = new ConcurrentHashMap<>();

    private final PaymentGateway gateway;

    /**
     * Creates the service.
     * @param gateway the card processor
     */
    public OrderService(PaymentGateway gateway) {
        this.gateway = gateway;
    }

    /**
     * Pays an order once: a repeated or concurrent payment returns the first receipt instead of charging
     * again. Waits up to {@code sample.payment.wait-time} (3 s) for a concurrent payment of the same order.
     * @param orderId the order
     * @param amountCents the amount to charge
     * @return the receipt; {@link Receipt#repeated()} when the order was paid already
     * @throws io.github.redlock.core.RedlockAcquisitionException when the order stayed locked for the wait time
     */
    @Redlocked(key = "order:#{#orderId}", ttl = "10s", waitTime = "${sample.payment.wait-time:3s}")
    public Receipt pay(String orderId, long amountCents) {
        Receipt paid = this.receipts.get(orderId);
        if (paid != null) {
            return paid.asRepeated();
        }
        Receipt receipt = this.gateway.charge(orderId, amountCents);
        this.receipts.put(orderId, receipt);
        return receipt;
    }

}
