package io.github.redlock.test.example;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redlock.annotation.Redlocked;

import org.springframework.stereotype.Service;

/**
 * The service of the example test in docs/testing.md: one payment per order at a time, across instances.
 */
@Service
public class OrderService {

    private final Map<String, Integer> charged = new ConcurrentHashMap<>();

    /**
     * Charges an order once.
     * @param orderId the order
     * @param cents the amount
     * @return whether this call charged it
     */
    @Redlocked(key = "order:#{#orderId}", ttl = "10s")
    public boolean pay(String orderId, int cents) {
        return this.charged.putIfAbsent(orderId, cents) == null;
    }

}
