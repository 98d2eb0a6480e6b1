package io.github.redlock.sample.ledger;

import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code balance} table (see {@code schema.sql}): plain SQL, with no fencing in it. The fence of each account is the
 * starter's, in its {@code redlock_fence} table: {@link Ledger#change} is {@code @Redlocked(fenced = true)}, so its
 * transaction advances the fence of {@code account:<id>} to its lease's token before it commits, or rolls back.
 */
@Repository
public class Balances {

    private final JdbcClient jdbc;

    Balances(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Opens an account.
     * @param accountId the account
     * @param amountCents its first balance
     * @throws org.springframework.dao.DuplicateKeyException if the account exists already
     */
    public void open(String accountId, long amountCents) {
        this.jdbc.sql("INSERT INTO balance (account_id, amount) VALUES (?, ?)")
                .params(accountId, amountCents)
                .update();
    }

    /**
     * Reads an account's balance.
     * @param accountId the account
     * @return the balance in cents, or empty if there is no such account
     */
    public Optional<Long> amount(String accountId) {
        return this.jdbc.sql("SELECT amount FROM balance WHERE account_id = ?")
                .param(accountId)
                .query(Long.class)
                .optional();
    }

    /**
     * Writes an account's balance.
     * @param accountId the account
     * @param amountCents the new balance
     */
    public void write(String accountId, long amountCents) {
        this.jdbc.sql("UPDATE balance SET amount = ? WHERE account_id = ?")
                .params(amountCents, accountId)
                .update();
    }

}
