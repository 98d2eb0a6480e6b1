package io.github.redlock.fencing;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fences that the database enforces, on real PostgreSQL and MariaDB servers and three real lock nodes with fencing on.
 * The hazard: a holder that pauses past its lease inside its transaction, then commits, overwrites the data of the
 * holder that took the lock meanwhile. With {@link JdbcFence#advance} in the transaction, its commit never happens: the
 * fence refuses its token and the transaction rolls back.
 */
class JdbcFenceIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private static final Map<DatabaseServer.Kind, DatabaseServer> servers = new EnumMap<>(DatabaseServer.Kind.class);

    @RegisterExtension
    final RedisClientExtension<Redlock> first = RedisClientExtension.of(redis, JdbcFenceIntegrationTests::lock);

    @RegisterExtension
    final RedisClientExtension<Redlock> second = RedisClientExtension.of(redis, JdbcFenceIntegrationTests::lock);

    @AfterAll
    static void stopServers() {
        servers.values().forEach(DatabaseServer::close);
        servers.clear();
    }

    @ParameterizedTest
    @EnumSource(DatabaseServer.Kind.class)
    void aHolderThatPausedPastItsLeaseNeverCommitsOverTheNextHoldersWrite(DatabaseServer.Kind kind) throws Exception {
        Database db = database(kind, "balance_a");
        RedlockLease paused = this.first.get().acquire("account:42", Duration.ofMillis(500), Duration.ZERO);
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch nextCommitted = new CountDownLatch(1);
        // The paused holder reads the balance in its transaction, then pauses past its lease (a GC pause, a stalled
        // VM) before it writes; as the starter's guard does, it advances the fence last, before its commit.
        CompletableFuture<Void> pausedHolder = CompletableFuture.runAsync(() -> db.transactions.executeWithoutResult((status) -> {
            long amount = db.jdbc.queryForObject("SELECT amount FROM balance_a WHERE account_id = '42'", Long.class);
            read.countDown();
            await(nextCommitted);
            db.jdbc.update("UPDATE balance_a SET amount = ?, written_by = 'paused holder' WHERE account_id = '42'", amount - 10);
            db.fence.advance("account:42", paused.fencingToken());
        }));
        assertThat(read.await(30, TimeUnit.SECONDS)).isTrue();
        // The next holder waits until the paused holder\'s lease has run out on the nodes.
        RedlockLease next = this.second.get().acquire("account:42", Duration.ofSeconds(10), Duration.ofSeconds(5));
        assertThat(next.fencingToken()).isGreaterThan(paused.fencingToken());
        db.transactions.executeWithoutResult((status) -> {
            db.jdbc.update("UPDATE balance_a SET amount = amount + 10, written_by = 'next holder' WHERE account_id = '42'");
            db.fence.advance("account:42", next.fencingToken());
        });
        nextCommitted.countDown();
        assertThat(pausedHolder).failsWithin(Duration.ofSeconds(30)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(StaleFencingTokenException.class, (ex) -> {
                    assertThat(ex.getResource()).isEqualTo("account:42");
                    assertThat(ex.getToken()).isEqualTo(paused.fencingToken());
                    assertThat(ex.getFence()).isEqualTo(next.fencingToken());
                });
        assertThat(db.jdbc.queryForObject("SELECT written_by FROM balance_a WHERE account_id = '42'", String.class))
                .as("only the next holder's write is in the table").isEqualTo("next holder");
        assertThat(db.jdbc.queryForObject("SELECT amount FROM balance_a WHERE account_id = '42'", Long.class)).isEqualTo(110);
        assertThat(db.fence.fence("account:42")).isEqualTo(next.fencingToken());
        next.release();
    }

    @ParameterizedTest
    @EnumSource(DatabaseServer.Kind.class)
    void withoutTheFenceThePausedHoldersWriteLands(DatabaseServer.Kind kind) throws Exception {
        Database db = database(kind, "balance_b");
        RedlockLease paused = this.first.get().acquire("account:7", Duration.ofMillis(500), Duration.ZERO);
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch nextCommitted = new CountDownLatch(1);
        CompletableFuture<Void> pausedHolder = CompletableFuture.runAsync(() -> db.transactions.executeWithoutResult((status) -> {
            long amount = db.jdbc.queryForObject("SELECT amount FROM balance_b WHERE account_id = '42'", Long.class);
            read.countDown();
            await(nextCommitted);
            db.jdbc.update("UPDATE balance_b SET amount = ?, written_by = 'paused holder' WHERE account_id = '42'", amount - 10);
        }));
        assertThat(read.await(30, TimeUnit.SECONDS)).isTrue();
        // The next holder waits until the paused holder\'s lease has run out on the nodes.
        RedlockLease next = this.second.get().acquire("account:7", Duration.ofSeconds(10), Duration.ofSeconds(5));
        db.transactions.executeWithoutResult((status) -> db.jdbc.update(
                "UPDATE balance_b SET amount = amount + 10, written_by = 'next holder' WHERE account_id = '42'"));
        nextCommitted.countDown();
        assertThat(pausedHolder).succeedsWithin(Duration.ofSeconds(30));
        assertThat(db.jdbc.queryForObject("SELECT written_by FROM balance_b WHERE account_id = '42'", String.class))
                .as("the hazard: the stale write landed").isEqualTo("paused holder");
        assertThat(db.jdbc.queryForObject("SELECT amount FROM balance_b WHERE account_id = '42'", Long.class))
                .as("and the next holder's deposit is lost").isEqualTo(90);
        assertThat(paused.isValid()).isFalse();
        next.release();
    }

    @ParameterizedTest
    @EnumSource(DatabaseServer.Kind.class)
    void aFenceIsInsertedOnFirstUseAdvancedByTheSameHolderAgainAndNeverLowered(DatabaseServer.Kind kind) {
        Database db = database(kind, "balance_c");
        db.transactions.executeWithoutResult((status) -> db.fence.advance("report", 1_000));
        db.transactions.executeWithoutResult((status) -> db.fence.advance("report", 1_000)); // the same holder again
        db.transactions.executeWithoutResult((status) -> db.fence.advance("report", 2_000));
        assertThatThrownBy(() -> db.transactions.executeWithoutResult((status) -> db.fence.advance("report", 1_500)))
                .isInstanceOf(StaleFencingTokenException.class).hasMessageContaining("1500").hasMessageContaining("2000");
        assertThat(db.fence.fence("report")).isEqualTo(2_000);
        assertThat(db.fence.fence("never-fenced")).isZero();
        // Two first fences of one resource at once: the lower one, whichever commits first, never stands above the higher.
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> high = CompletableFuture.runAsync(() -> db.transactions.executeWithoutResult((status) -> {
            db.fence.advance("fresh", 500);
            inserted.countDown();
            await(release);
        }));
        await(inserted);
        CompletableFuture<Void> low = CompletableFuture.runAsync(() -> db.transactions.executeWithoutResult(
                (status) -> db.fence.advance("fresh", 400))); // waits for the first insert's transaction
        release.countDown();
        assertThat(high).succeedsWithin(Duration.ofSeconds(30));
        assertThat(low).failsWithin(Duration.ofSeconds(30)).withThrowableThat().havingCause().isInstanceOf(StaleFencingTokenException.class);
        assertThat(db.fence.fence("fresh")).isEqualTo(500);
    }

    private Database database(DatabaseServer.Kind kind, String table) {
        Capabilities.assume(kind == DatabaseServer.Kind.POSTGRESQL ? Capabilities.POSTGRESQL : Capabilities.MARIADB,
                DatabaseServer.find(kind).isPresent(), kind + " is not installed (apt-get install "
                        + (kind == DatabaseServer.Kind.POSTGRESQL ? "postgresql" : "mariadb-server") + "): its fencing tests are skipped");
        DatabaseServer server = servers.computeIfAbsent(kind, DatabaseServer::start);
        SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
        dataSource.setDriverClass(kind == DatabaseServer.Kind.POSTGRESQL ? org.postgresql.Driver.class : org.mariadb.jdbc.Driver.class);
        dataSource.setUrl(server.jdbcUrl());
        dataSource.setUsername(server.username());
        dataSource.setPassword("");
        new ResourceDatabasePopulator(new ClassPathResource("io/github/redlock/fencing/schema-"
                + (kind == DatabaseServer.Kind.POSTGRESQL ? "postgresql" : "mariadb") + ".sql")).execute(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("DROP TABLE IF EXISTS " + table);
        jdbc.execute("CREATE TABLE " + table + " (account_id VARCHAR(16) PRIMARY KEY, amount BIGINT NOT NULL, written_by VARCHAR(32) NOT NULL)");
        jdbc.update("INSERT INTO " + table + " VALUES ('42', 100, 'nobody yet')");
        jdbc.update("DELETE FROM redlock_fence");
        return new Database(jdbc, new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
                new JdbcFence(dataSource, JdbcFence.DEFAULT_TABLE_NAME));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).as("a step of the other transaction within 30 s").isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static Redlock lock(java.util.List<String> uris) {
        return Redlock.builder().nodes(uris).fencing(true).nodeTimeout(Duration.ofSeconds(2)).build();
    }

    private record Database(JdbcTemplate jdbc, TransactionTemplate transactions, JdbcFence fence) {

    }

}
