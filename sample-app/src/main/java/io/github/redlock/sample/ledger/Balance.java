package io.github.redlock.sample.ledger;

/**
 * One row of the {@code balance} table.
 *
 * @param accountId the account
 * @param amount the balance in cents
 * @param fence the fencing token of the last write the database accepted; 0 before the first
 */
public record Balance(String accountId, long amount, long fence) {
}
