package io.github.redlock.fencing;

import java.sql.DatabaseMetaData;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.Assert;

/**
 * The fence of named resources in a relational database: {@link #advance} raises a resource's fence to a holder's
 * fencing token in the caller's transaction, or refuses a token below it with a {@link StaleFencingTokenException}, so
 * that the transaction of a holder that paused past its lease, while a later holder committed, rolls back instead of
 * writing stale data. Run it in the transaction that writes the data (a Spring-managed one: it joins it through the
 * {@link DataSource}); the row it updates stays locked until that transaction ends, so two holders' transactions are
 * ordered by it at every isolation level, and one of a stale holder never commits.
 * <p>
 * The fences are rows of {@code redlock_fence(resource varchar(255) primary key, token bigint not null)} (the table's
 * name is configurable; {@code io/github/redlock/fencing/schema-<database>.sql} creates it). A resource that was fenced
 * before costs one statement ({@code UPDATE ... WHERE token <= ?}); its first fence inserts its row (the database's
 * insert-if-absent: PostgreSQL's {@code ON CONFLICT DO NOTHING}, MariaDB's and MySQL's {@code INSERT IGNORE}, elsewhere
 * an insert that a concurrent one may beat). Tested on real PostgreSQL and MariaDB servers.
 */
public final class JdbcFence {

    /** The default table name. */
    public static final String DEFAULT_TABLE_NAME = "redlock_fence";

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final String table;

    private final String update;

    private final String insert;

    private final boolean insertMayConflict;

    /**
     * Creates the fence of resources stored in {@code table} of the database.
     * @param dataSource the database that holds the fences, and whose transactions they join
     * @param table the table's name ({@value #DEFAULT_TABLE_NAME} by default), letters, digits and underscores, with an
     * optional schema
     * @throws IllegalArgumentException if the table's name is not a plain SQL name
     */
    public JdbcFence(DataSource dataSource, String table) {
        Assert.notNull(dataSource, "dataSource must not be null");
        Assert.isTrue(table != null && TABLE_NAME.matcher(table).matches(), () -> "table must be a plain SQL name (letters, digits, "
                + "underscores, optionally schema.table), was '" + table + "'");
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.table = table;
        this.update = "UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?";
        String product = product(dataSource);
        if (product.contains("postgres")) {
            this.insert = "INSERT INTO " + table + " (resource, token) VALUES (?, ?) ON CONFLICT (resource) DO NOTHING";
            this.insertMayConflict = false;
        }
        else if (product.contains("mariadb") || product.contains("mysql")) {
            this.insert = "INSERT IGNORE INTO " + table + " (resource, token) VALUES (?, ?)";
            this.insertMayConflict = false;
        }
        else {
            this.insert = "INSERT INTO " + table + " (resource, token) VALUES (?, ?)";
            this.insertMayConflict = true;
        }
    }

    /**
     * Raises the fence of {@code resource} to {@code token} in the caller's transaction, or refuses a stale token: the
     * same holder may advance it with its token many times, and a later holder's higher token takes over.
     * @param resource what the fence guards, e.g. a lock's name ({@code account:42}); at most 255 characters
     * @param token the holder's fencing token ({@code RedlockLease.fencingToken()})
     * @throws StaleFencingTokenException if the resource's fence is above {@code token}: a later holder advanced it, so
     * this holder must not write (its transaction should roll back)
     */
    public void advance(String resource, long token) {
        Assert.hasLength(resource, "resource must not be empty");
        Assert.isTrue(resource.length() <= 255, () -> "resource must be at most 255 characters, was " + resource.length());
        Assert.isTrue(token > 0, () -> "token must be a lease's fencing token (above 0; is redlock.fencing on?), was " + token);
        if (this.jdbc.update(this.update, token, resource, token) == 1) {
            return;
        }
        // No row yet (the first fence of the resource), or a fence above the token: insert it if it is absent.
        try {
            if (this.jdbc.update(this.insert, resource, token) == 1) {
                return;
            }
        }
        catch (DuplicateKeyException ex) {
            if (!this.insertMayConflict) {
                throw ex;
            }
            // another transaction inserted it first: its fence is in place now
        }
        if (this.jdbc.update(this.update, token, resource, token) == 1) {
            return; // inserted by a concurrent first fence with a lower or equal token
        }
        // A locking read: a plain one may see the transaction's snapshot (MariaDB's repeatable read), from before the
        // later holder's fence.
        List<Long> fences = this.jdbc.queryForList("SELECT token FROM " + this.table + " WHERE resource = ? FOR UPDATE", Long.class,
                resource);
        throw new StaleFencingTokenException(resource, token, fences.isEmpty() ? 0 : fences.get(0));
    }

    /**
     * Creates the table of the fences where it does not exist ({@code CREATE TABLE IF NOT EXISTS}, which PostgreSQL,
     * MariaDB, MySQL and H2 understand alike), as {@code redlock.jdbc-fence.initialize-schema} asks.
     */
    public void createTable() {
        this.jdbc.execute("CREATE TABLE IF NOT EXISTS " + this.table + " (resource VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)");
    }

    /**
     * Returns the fence of {@code resource}: the highest token it was advanced to, or 0 before the first.
     * @param resource what the fence guards
     * @return its fence
     */
    public long fence(String resource) {
        List<Long> fences = this.jdbc.queryForList("SELECT token FROM " + this.table + " WHERE resource = ?", Long.class, resource);
        return fences.isEmpty() ? 0 : fences.get(0);
    }

    /**
     * Returns the database that holds the fences: {@link #advance} joins the transaction of this {@code DataSource} that
     * the calling thread runs in.
     * @return the data source
     */
    public DataSource getDataSource() {
        return this.dataSource;
    }

    private static String product(DataSource dataSource) {
        try {
            String name = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
            return (name != null) ? name.toLowerCase(Locale.ROOT) : "";
        }
        catch (MetaDataAccessException ex) {
            throw new IllegalStateException("Cannot tell the database of the fences (" + ex.getMessage() + ")", ex);
        }
    }

}
