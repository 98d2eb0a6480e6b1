package io.github.redlock.sample.orders;

import java.time.Instant;

/**
 * The proof of a payment.
 *
 * @param orderId the order paid
 * @param amountCents the amount charged
 * @param chargeId the processor's charge
 * @param paidAt when it was charged
 * @param repeated whether this call found the order paid already (no new charge)
 */
public record Receipt(String orderId, long amountCents, String chargeId, Instant paidAt, boolean repeated) {

    Receipt asRepeated() {
        return new Receipt(this.orderId, this.amountCents, this.chargeId, this.paidAt, true);
    }

}
