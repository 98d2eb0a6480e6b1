package io.github.redlock.sample.prices;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.Redlocked;

import org.springframework.stereotype.Service;

/**
 * The price list: read constantly, replaced now and then entry by entry. Readers share the read lock, so
 * they never wait for each other; a replacement takes the write lock, so no reader sees a list that is half
 * old and half new. A waiting replacement keeps new readers out, so a stream of reads cannot starve it.
 */
@Service
public class PriceList {

    private final Map<String, Long> prices = new ConcurrentHashMap<>(Map.of("sku-1", 1999L, "sku-2", 4999L));

    private volatile long version = 1;

    /**
     * Returns the whole list as one consistent version.
     * @return the prices, by SKU, with the list's version
     */
    @Redlocked(key = "price-list", mode = LockMode.READ, ttl = "5s", waitTime = "2s")
    public Quote quote() {
        return new Quote(this.version, new TreeMap<>(this.prices));
    }

    /**
     * Replaces the list, entry by entry (a reader without the lock could see it half done).
     * @param replacement the new prices, by SKU
     * @return the new list
     */
    @Redlocked(key = "price-list", mode = LockMode.WRITE, ttl = "10s", waitTime = "5s")
    public Quote replace(Map<String, Long> replacement) {
        this.prices.keySet().retainAll(replacement.keySet());
        replacement.forEach((sku, price) -> {
            this.prices.put(sku, price);
            pause(); // a slow store: the list is inconsistent until the last entry is written
        });
        this.version++;
        return new Quote(this.version, new TreeMap<>(this.prices));
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One version of the price list.
     *
     * @param version increases with every replacement
     * @param prices the prices in cents, by SKU
     */
    public record Quote(long version, Map<String, Long> prices) {
    }

}
