package io.github.redlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The storage as a real PostgreSQL database: each lock has a row of {@value #VALUES} that its holders overwrite, and
 * every write is logged in {@value #WRITES}. A holder's write is one transaction, as an application's would be: it
 * writes the lock's row, logs the write, and, when the write carries a fencing token and the fence is on, calls
 * {@link JdbcFence#advance} with the lock key and the token last, before the commit (as the starter's
 * {@code @Redlocked(fenced = true)} guard does). A token below the lock's fence throws
 * {@link StaleFencingTokenException}: the transaction rolls back, nothing of it lands, and the refusal is logged on its
 * own. A write without a token, or with the fence off (the control), commits unchecked.
 * <p>
 * The order of the writes is the database's: of two accepted writes to one lock, the one committed later has the
 * larger {@code seq}. Each write locks its lock's row of {@value #VALUES} first (the upsert) and keeps that lock until it
 * commits or rolls back, and only then draws its {@code seq} from the log's sequence; so one lock's writes draw their
 * numbers one transaction at a time, in the order they commit. (A refusal's log row is drawn after the rollback: the
 * checker orders accepted writes only.)
 * <p>
 * Thread-safe: a fixed pool of connections (HikariCP), one per thread that writes, so that a write costs no connect.
 */
final class PostgresStorage implements Storage {

    /** The table of the locks' values: one row per lock, overwritten by each accepted write. */
    static final String VALUES = "chaos_value";

    /** The table of every write, in the database's order ({@code seq}), accepted or refused. */
    static final String WRITES = "chaos_write";

    private static final String WRITE_VALUE = "INSERT INTO " + VALUES + " (lock_key, lease_token, fencing_token, writes) VALUES (?, ?, ?, 1) "
            + "ON CONFLICT (lock_key) DO UPDATE SET lease_token = excluded.lease_token, fencing_token = excluded.fencing_token, writes = "
            + VALUES + ".writes + 1";

    private static final String LOG_WRITE = "INSERT INTO " + WRITES + " (lock_key, lease_token, fencing_token, accepted) VALUES (?, ?, ?, ?) "
            + "RETURNING seq";

    private final HikariDataSource dataSource;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final JdbcFence fence;

    private final boolean fenced;

    /**
     * Connects to the database.
     * @param url its JDBC URL, with the user ({@code jdbc:postgresql://127.0.0.1:5432/postgres?user=redlock})
     * @param fenced whether writes with a fencing token advance the lock's fence ({@code false}: the control)
     * @param connections the pool's fixed size
     */
    PostgresStorage(String url, boolean fenced, int connections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("chaos-storage");
        config.setMaximumPoolSize(connections);
        config.setMinimumIdle(connections);
        config.setConnectionTimeout(30_000);
        this.dataSource = new HikariDataSource(config);
        this.jdbc = new JdbcTemplate(this.dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
        this.fence = new JdbcFence(this.dataSource, JdbcFence.DEFAULT_TABLE_NAME);
        this.fenced = fenced;
    }

    /** Creates the fences' table ({@link JdbcFence#createTable()}), the values' and the log, for a run's first use. */
    void createTables() {
        this.fence.createTable();
        this.jdbc.execute("CREATE TABLE IF NOT EXISTS " + VALUES + " (lock_key TEXT PRIMARY KEY, lease_token TEXT NOT NULL, "
                + "fencing_token BIGINT NOT NULL, writes BIGINT NOT NULL)");
        this.jdbc.execute("CREATE TABLE IF NOT EXISTS " + WRITES + " (seq BIGSERIAL PRIMARY KEY, lock_key TEXT NOT NULL, "
                + "lease_token TEXT NOT NULL, fencing_token BIGINT NOT NULL, accepted BOOLEAN NOT NULL)");
    }

    /** The server's version, e.g. {@code 15.14}. */
    String version() {
        String version = this.jdbc.queryForObject("SHOW server_version", String.class);
        return (version != null) ? version.split(" ")[0] : "?";
    }

    @Override
    public Outcome write(String lockKey, String leaseToken, long fencingToken) {
        try {
            Long seq = this.transactions.execute((status) -> {
                this.jdbc.update(WRITE_VALUE, lockKey, leaseToken, fencingToken);
                Long logged = this.jdbc.queryForObject(LOG_WRITE, Long.class, lockKey, leaseToken, fencingToken, true);
                if (this.fenced && fencingToken >= 0) {
                    this.fence.advance(lockKey, fencingToken);
                }
                return logged;
            });
            return new Outcome(seq, true);
        }
        catch (StaleFencingTokenException ex) { // rolled back: only the refusal is logged
            return new Outcome(this.jdbc.queryForObject(LOG_WRITE, Long.class, lockKey, leaseToken, fencingToken, false), false);
        }
    }

    /** The lease token of the write that the lock's row holds now, or null before its first accepted write. */
    String valueOf(String lockKey) {
        return this.jdbc.query("SELECT lease_token FROM " + VALUES + " WHERE lock_key = ?", (rows) -> rows.next() ? rows.getString(1) : null,
                lockKey);
    }

    @Override
    public void dump(Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            this.jdbc.query("SELECT seq, lock_key, lease_token, fencing_token, accepted FROM " + WRITES + " ORDER BY seq", (row) -> {
                try {
                    out.write(String.join("\t", Long.toString(row.getLong(1)), row.getString(2), row.getString(3),
                            Long.toString(row.getLong(4)), row.getBoolean(5) ? "1" : "0"));
                    out.write('\n');
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
        }
    }

    @Override
    public void close() {
        this.dataSource.close();
    }

}
