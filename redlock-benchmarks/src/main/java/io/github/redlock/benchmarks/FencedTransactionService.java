package io.github.redlock.benchmarks;

import io.github.redlock.annotation.Redlocked;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The {@link FencedTransactionBenchmark}'s methods: the same {@code @Transactional} method, one {@code UPDATE} of the
 * caller's account row, under {@code @Redlocked(fenced = true)} (its commit advances the fence of the lock's name with
 * the starter's {@code JdbcFence}, one statement more in the transaction), under a plain {@code @Redlocked}, and
 * without a lock (the database's floor). An account is a row of {@value #TABLE}, which {@link #createAccount} inserts.
 */
public class FencedTransactionService {

    /** The table of the accounts the methods update. */
    static final String TABLE = "bench_account";

    private final JdbcTemplate jdbc;

    FencedTransactionService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Locks {@code bench:<account>}, adds 1 to the account and, before the commit, advances the fence of
     * {@code bench:<account>} to the lease's token; commits, unlocks.
     * @param account the per-thread account
     */
    @Redlocked(key = "bench:#{#account}", ttl = "10s", fenced = true)
    @Transactional
    public void fenced(String account) {
        deposit(account);
    }

    /**
     * Locks {@code bench:<account>}, adds 1 to the account, commits, unlocks.
     * @param account the per-thread account
     */
    @Redlocked(key = "bench:#{#account}", ttl = "10s")
    @Transactional
    public void unfenced(String account) {
        deposit(account);
    }

    /**
     * Adds 1 to the account and commits, with no lock.
     * @param account the per-thread account
     */
    @Transactional
    public void transactionOnly(String account) {
        deposit(account);
    }

    /**
     * Creates the table of the accounts, if it is not there, and the account's row at 0, if it is not there.
     * @param account the account
     */
    public void createAccount(String account) {
        this.jdbc.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (account_id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)");
        this.jdbc.update("INSERT INTO " + TABLE + " (account_id, amount) VALUES (?, 0) ON CONFLICT (account_id) DO NOTHING", account);
    }

    /**
     * The account's amount: how many calls committed for it.
     * @param account the account
     * @return its amount
     */
    public long amount(String account) {
        return this.jdbc.queryForObject("SELECT amount FROM " + TABLE + " WHERE account_id = ?", Long.class, account);
    }

    private void deposit(String account) {
        if (this.jdbc.update("UPDATE " + TABLE + " SET amount = amount + 1 WHERE account_id = ?", account) != 1) {
            throw new IllegalStateException("No account '" + account + "' in " + TABLE + ": createAccount it before the calls");
        }
    }

    /**
     * The minimal Spring Boot application around it: the starter, and Boot's DataSource (a HikariCP pool), JdbcTemplate
     * and transaction manager, from {@code spring.datasource.*}.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class Application {

        @Bean
        FencedTransactionService fencedTransactionService(JdbcTemplate jdbc) {
            return new FencedTransactionService(jdbc);
        }

    }

}
