package io.github.redlock.sample.ledger;

/**
 * An account's balance and its fence.
 *
 * @param accountId the account
 * @param amount the balance in cents
 * @param fence the fencing token of the last change the database committed (the fence of {@code account:<id>} in the
 * starter's {@code redlock_fence} table); 0 before the first
 */
public record Balance(String accountId, long amount, long fence) {
}
