package io.github.redlock.sample.ledger;

import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code balance} table (see {@code schema.sql}). Its one update is where fencing happens: the database
 * applies a write only if the writer's fencing token is larger than that of the last write it accepted, in the
 * statement that writes ({@code UPDATE ... WHERE account_id = ? AND fence < ?}), so the check and the write
 * cannot be separated by a pause either. Each accepted write stores its token as the account's new fence.
 */
@Repository
public class Balances {

    private final JdbcClient jdbc;

    Balances(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Opens an account, with no fenced write yet (fence 0).
     * @param accountId the account
     * @param amountCents its first balance
     * @return the new row
     * @throws org.springframework.dao.DuplicateKeyException if the account exists already
     */
    public Balance open(String accountId, long amountCents) {
        this.jdbc.sql("INSERT INTO balance (account_id, amount, fence) VALUES (?, ?, 0)")
                .params(accountId, amountCents)
                .update();
        return new Balance(accountId, amountCents, 0);
    }

    /**
     * Reads an account's balance and fence.
     * @param accountId the account
     * @return the row, or empty if there is no such account
     */
    public Optional<Balance> find(String accountId) {
        return this.jdbc.sql("SELECT account_id, amount, fence FROM balance WHERE account_id = ?")
                .param(accountId)
                .query(Balance.class)
                .optional();
    }

    /**
     * Writes a new balance if {@code fencingToken} is larger than the fence of the last accepted write, and
     * makes it the new fence.
     * @param accountId the account
     * @param amountCents the new balance
     * @param fencingToken the writer's fencing token
     * @return {@code true} if the database applied the write; {@code false} if it refused it, because a write
     * with a token at least as large was accepted before (or there is no such account)
     */
    public boolean writeIfNewer(String accountId, long amountCents, long fencingToken) {
        int updated = this.jdbc.sql("UPDATE balance SET amount = ?, fence = ? WHERE account_id = ? AND fence < ?")
                .params(amountCents, fencingToken, accountId, fencingToken)
                .update();
        return updated == 1;
    }

}
