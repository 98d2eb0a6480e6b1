package io.github.redlock.fencing;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.fencing.RedlockJdbcFenceAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @Redlocked(fenced = true)}: two instances of an application on three real lock nodes and one real PostgreSQL or
 * MariaDB server. The hazard: instance A reads a balance in its transaction and pauses past its lease before it writes;
 * instance B takes the lock, writes and commits; A resumes, writes and commits over B's write. With {@code fenced = true}
 * A's commit fails with {@link StaleFencingTokenException} and rolls back, whether the lock is taken around the
 * transaction or inside it; with {@code fenced = false} (the control) A's stale write lands. Then, on H2, what the
 * attribute refuses: a call in no transaction (before its lock is taken), and at start-up a read lock, a reactive result
 * and an application without a {@link JdbcFence}.
 */
class RedlockedFencedIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private static final Map<DatabaseServer.Kind, DatabaseServer> servers = new EnumMap<>(DatabaseServer.Kind.class);

    private static final AtomicInteger accounts = new AtomicInteger();

    @AfterAll
    static void stopServers() {
        servers.values().forEach(DatabaseServer::close);
        servers.clear();
    }

    static Stream<Arguments> databasesAndOrders() {
        return Stream.of(DatabaseServer.Kind.values())
                .flatMap((kind) -> Stream.of(Arguments.of(kind, true), Arguments.of(kind, false)));
    }

    @ParameterizedTest(name = "{0}, lock around the transaction: {1}")
    @MethodSource("databasesAndOrders")
    void theCommitOfAHolderThatPausedPastItsLeaseFailsAndOnlyTheNextHoldersWriteLands(DatabaseServer.Kind kind,
            boolean lockAroundTransaction) throws Exception {
        DatabaseServer server = server(kind);
        String account = newAccount(server);
        runner(server, lockAroundTransaction).run((a) -> runner(server, lockAroundTransaction).run((b) -> {
            Ledger paused = a.getBean(Ledger.class);
            paused.pauseAfterRead();
            CompletableFuture<Void> pausedHolder = CompletableFuture.runAsync(() -> paused.write(account, -10, "paused holder"));
            paused.awaitRead();
            // The next holder waits until the paused holder's lease (1 s) ran out on the nodes, writes and commits.
            b.getBean(Ledger.class).write(account, 10, "next holder");
            long nextToken = b.getBean(Ledger.class).lastToken();
            paused.resume();
            assertThat(pausedHolder).failsWithin(Duration.ofSeconds(30)).withThrowableThat().havingCause()
                    .isInstanceOfSatisfying(StaleFencingTokenException.class, (ex) -> {
                        assertThat(ex.getResource()).isEqualTo("account:" + account);
                        assertThat(ex.getToken()).isEqualTo(paused.lastToken()).isLessThan(nextToken);
                        assertThat(ex.getFence()).isEqualTo(nextToken);
                        // Around the transaction the lock was still the paused call's to hold at its commit.
                        assertThat(ex.isLeaseExpired()).isEqualTo(lockAroundTransaction);
                    });
            Ledger reader = b.getBean(Ledger.class);
            assertThat(reader.writer(account)).as("only the next holder's write is in the table").isEqualTo("next holder");
            assertThat(reader.amount(account)).isEqualTo(110);
            assertThat(b.getBean(JdbcFence.class).fence("account:" + account)).isEqualTo(nextToken);
        }));
    }

    @ParameterizedTest
    @EnumSource(DatabaseServer.Kind.class)
    void withoutFencedThePausedHoldersWriteLands(DatabaseServer.Kind kind) throws Exception {
        DatabaseServer server = server(kind);
        String account = newAccount(server);
        runner(server, true).run((a) -> runner(server, true).run((b) -> {
            Ledger paused = a.getBean(Ledger.class);
            paused.pauseAfterRead();
            CompletableFuture<Void> pausedHolder = CompletableFuture.runAsync(() -> paused.writeUnfenced(account, -10, "paused holder"));
            paused.awaitRead();
            b.getBean(Ledger.class).writeUnfenced(account, 10, "next holder");
            paused.resume();
            assertThat(pausedHolder).succeedsWithin(Duration.ofSeconds(30));
            Ledger reader = b.getBean(Ledger.class);
            assertThat(reader.writer(account)).as("the hazard: the stale write landed").isEqualTo("paused holder");
            assertThat(reader.amount(account)).as("and the next holder's deposit is lost").isEqualTo(90);
        }));
    }

    @Test
    void aCallInNoTransactionFailsBeforeItsLockIsTakenAndACallersTransactionIsFencedAsItCommits() {
        h2Runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            String account = "h2-" + accounts.incrementAndGet();
            ledger.insert(account);
            assertThatIllegalStateException().isThrownBy(() -> ledger.writeWithoutTransaction(account, 10, "no transaction"))
                    .withMessageContaining("Ledger.writeWithoutTransaction(String, long, String) was called in no transaction")
                    .withMessageContaining("not @Transactional");
            assertThat(ledger.writer(account)).as("the method did not run").isEqualTo("nobody yet");
            assertThat(context.getBean(Redlock.class).tryAcquire("account:" + account, Duration.ofSeconds(5), Duration.ZERO))
                    .as("its lock was not taken").hasValueSatisfying(RedlockLease::release);
            // In the caller's transaction, the fence moves when that transaction commits, not when the method returns.
            JdbcFence fence = context.getBean(JdbcFence.class);
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            transactions.executeWithoutResult((status) -> {
                ledger.writeWithoutTransaction(account, 10, "caller's transaction");
                Long seenElsewhere = new TransactionTemplate(context.getBean(PlatformTransactionManager.class),
                        propagation(Propagation.REQUIRES_NEW)).execute((inner) -> fence.fence("account:" + account));
                assertThat(seenElsewhere).as("not yet committed").isZero();
            });
            assertThat(fence.fence("account:" + account)).isEqualTo(ledger.lastToken()).isPositive();
            // A read-only transaction writes nothing: it has no fence to advance.
            ledger.readOnly("account-read-only");
            assertThat(fence.fence("account:account-read-only")).isZero();
        });
    }

    @Test
    void aMethodOfItsOwnTransactionIsFencedInItEvenInACallersTransactionAndOneThatSuspendsTheCallersIsRefused() {
        h2Runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            String account = "h2-" + accounts.incrementAndGet();
            ledger.insert(account);
            JdbcFence fence = context.getBean(JdbcFence.class);
            PlatformTransactionManager transactionManager = context.getBean(PlatformTransactionManager.class);
            new TransactionTemplate(transactionManager).executeWithoutResult((status) -> {
                ledger.writeInNewTransaction(account, 10, "new transaction");
                Long seenElsewhere = new TransactionTemplate(transactionManager, propagation(Propagation.REQUIRES_NEW))
                        .execute((inner) -> fence.fence("account:" + account));
                assertThat(seenElsewhere).as("advanced in the method's own transaction, committed as it returned")
                        .isEqualTo(ledger.lastToken()).isPositive();
                assertThatIllegalStateException().isThrownBy(() -> ledger.writeOutsideTransactions(account, 10, "none"))
                        .withMessageContaining("its @Transactional propagation suspends the caller's");
            });
            assertThat(ledger.writer(account)).isEqualTo("new transaction");
        });
    }

    @Test
    void aCommitAfterTheLeaseRanOutFailsEvenBeforeALaterHolderWrote() throws Exception {
        h2Runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            String account = "h2-" + accounts.incrementAndGet();
            ledger.insert(account);
            ledger.pauseAfterRead();
            CompletableFuture<Void> paused = CompletableFuture.runAsync(() -> ledger.write(account, -10, "paused holder"));
            ledger.awaitRead();
            // Another caller takes the lock once the paused call's lease ran out, and lets it go without writing.
            context.getBean(Redlock.class).acquire("account:" + account, Duration.ofSeconds(10), Duration.ofSeconds(10)).release();
            ledger.resume();
            assertThat(paused).failsWithin(Duration.ofSeconds(30)).withThrowableThat().havingCause()
                    .isInstanceOfSatisfying(StaleFencingTokenException.class, (ex) -> {
                        assertThat(ex.isLeaseExpired()).isTrue();
                        assertThat(ex.getFence()).isEqualTo(ex.getToken()).isEqualTo(ledger.lastToken());
                        assertThat(ex).hasMessageContaining("ran out before the write");
                    });
            assertThat(ledger.writer(account)).isEqualTo("nobody yet");
            assertThat(context.getBean(JdbcFence.class).fence("account:" + account)).as("rolled back with the write").isZero();
        });
    }

    @Test
    void aLockOnSeveralKeysAdvancesTheFenceOfEach() {
        h2Runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.transfer("from-1", "to-1");
            JdbcFence fence = context.getBean(JdbcFence.class);
            assertThat(fence.fence("acct:from-1")).isEqualTo(ledger.lastToken()).isPositive();
            assertThat(fence.fence("acct:to-1")).isEqualTo(ledger.lastToken());
        });
    }

    @Test
    void startUpFailsForAReadLockAReactiveResultAndWithoutAFence() {
        h2Runner().withUserConfiguration(FencedRead.class).run((context) -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("@Redlocked(fenced = true, mode = READ) on FencedRead.read()")
                .hasMessageContaining("no fencing token orders them"));
        h2Runner().withUserConfiguration(FencedMono.class).run((context) -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("@Redlocked(fenced = true) on FencedMono.write(), which returns Mono")
                .hasMessageContaining("commits elsewhere"));
        h2Runner().withPropertyValues("redlock.fencing=false").run((context) -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("@Redlocked(fenced = true) on Ledger.").hasMessageContaining("needs one JdbcFence bean"));
    }

    private static org.springframework.transaction.support.DefaultTransactionDefinition propagation(Propagation propagation) {
        return new org.springframework.transaction.support.DefaultTransactionDefinition(propagation.value());
    }

    private ApplicationContextRunner baseRunner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockJdbcFenceAutoConfiguration.class))
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.fencing=true",
                        "redlock.node-timeout=2s", "redlock.restart-quarantine=never", "redlock.jdbc-fence.initialize-schema=always")
                .withUserConfiguration(LedgerConfiguration.class);
    }

    private ApplicationContextRunner runner(DatabaseServer server, boolean lockAroundTransaction) {
        return baseRunner().withBean(DataSource.class, () -> dataSource(server))
                .withUserConfiguration(lockAroundTransaction ? DefaultOrderTransactions.class : LockInsideTransactions.class);
    }

    private ApplicationContextRunner h2Runner() {
        String name = "fenced" + accounts.incrementAndGet();
        return baseRunner().withUserConfiguration(DefaultOrderTransactions.class).withBean(DataSource.class, () -> {
            DataSource dataSource = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).setName(name).build();
            new JdbcTemplate(dataSource).execute("CREATE TABLE IF NOT EXISTS balance (account_id VARCHAR(32) PRIMARY KEY, "
                    + "amount BIGINT NOT NULL, written_by VARCHAR(32) NOT NULL)");
            return dataSource;
        });
    }

    private static DatabaseServer server(DatabaseServer.Kind kind) {
        Capabilities.assume(kind == DatabaseServer.Kind.POSTGRESQL ? Capabilities.POSTGRESQL : Capabilities.MARIADB,
                DatabaseServer.find(kind).isPresent(), kind + " is not installed (apt-get install "
                        + (kind == DatabaseServer.Kind.POSTGRESQL ? "postgresql" : "mariadb-server") + "): its fenced tests are skipped");
        return servers.computeIfAbsent(kind, DatabaseServer::start);
    }

    /** A new account of 100 in the server's balance table, which this creates the first time. */
    private static String newAccount(DatabaseServer server) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource(server));
        jdbc.execute("CREATE TABLE IF NOT EXISTS balance (account_id VARCHAR(32) PRIMARY KEY, amount BIGINT NOT NULL, "
                + "written_by VARCHAR(32) NOT NULL)");
        String account = "a" + accounts.incrementAndGet() + "-" + System.nanoTime();
        jdbc.update("INSERT INTO balance VALUES (?, 100, 'nobody yet')", account);
        return account;
    }

    private static DataSource dataSource(DatabaseServer server) {
        SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
        dataSource.setDriverClass(server.kind() == DatabaseServer.Kind.POSTGRESQL ? org.postgresql.Driver.class : org.mariadb.jdbc.Driver.class);
        dataSource.setUrl(server.jdbcUrl());
        dataSource.setUsername(server.username());
        dataSource.setPassword("");
        return dataSource;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).as("a step of the other instance within 30 s").isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** Reads a balance, pauses there when asked to (as a holder stalled by a GC pause would), then writes it back changed. */
    static class Ledger {

        private final JdbcTemplate jdbc;

        private volatile CountDownLatch read = new CountDownLatch(0);

        private volatile CountDownLatch resume = new CountDownLatch(0);

        /** The fencing token of the last call's lease. */
        private volatile long lastToken;

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Redlocked(key = "account:#{#id}", ttl = "1s", waitTime = "10s", fenced = true)
        @Transactional
        public void write(String id, long delta, String writer) {
            readPauseWrite(id, delta, writer);
        }

        @Redlocked(key = "account:#{#id}", ttl = "1s", waitTime = "10s")
        @Transactional
        public void writeUnfenced(String id, long delta, String writer) {
            readPauseWrite(id, delta, writer);
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s", fenced = true)
        public void writeWithoutTransaction(String id, long delta, String writer) {
            readPauseWrite(id, delta, writer);
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s", fenced = true)
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void writeInNewTransaction(String id, long delta, String writer) {
            readPauseWrite(id, delta, writer);
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s", fenced = true)
        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        public void writeOutsideTransactions(String id, long delta, String writer) {
            readPauseWrite(id, delta, writer);
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s", mode = LockMode.WRITE, fenced = true)
        @Transactional(readOnly = true)
        public void readOnly(String id) {
            this.lastToken = RedlockContext.currentLease().orElseThrow().fencingToken();
        }

        @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" }, ttl = "10s", fenced = true)
        @Transactional
        public void transfer(String from, String to) {
            this.lastToken = RedlockContext.currentLease().orElseThrow().fencingToken();
        }

        private void readPauseWrite(String id, long delta, String writer) {
            this.lastToken = RedlockContext.currentLease().orElseThrow().fencingToken();
            long amount = amount(id);
            this.read.countDown();
            await(this.resume);
            this.jdbc.update("UPDATE balance SET amount = ?, written_by = ? WHERE account_id = ?", amount + delta, writer, id);
        }

        /** The fencing token of the last call's lease (a method: fields of the bean's proxy are not the bean's). */
        public long lastToken() {
            return this.lastToken;
        }

        public void insert(String id) {
            this.jdbc.update("INSERT INTO balance VALUES (?, 100, 'nobody yet')", id);
        }

        public void pauseAfterRead() {
            this.read = new CountDownLatch(1);
            this.resume = new CountDownLatch(1);
        }

        public void awaitRead() {
            await(this.read);
        }

        public void resume() {
            this.resume.countDown();
        }

        public long amount(String id) {
            return this.jdbc.queryForObject("SELECT amount FROM balance WHERE account_id = ?", Long.class, id);
        }

        public String writer(String id) {
            return this.jdbc.queryForObject("SELECT written_by FROM balance WHERE account_id = ?", String.class, id);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class LedgerConfiguration {

        @Bean
        Ledger ledger(DataSource dataSource) {
            return new Ledger(new JdbcTemplate(dataSource));
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

    }

    /** The default: the lock is taken before the transaction begins and released after it ended. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class DefaultOrderTransactions {

    }

    /** The transaction outside the lock: the lock is released before the commit. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
    static class LockInsideTransactions {

    }

    static class FencedRead {

        @Redlocked(key = "prices", mode = LockMode.READ, fenced = true)
        @Transactional
        public void read() {
        }

    }

    static class FencedMono {

        @Redlocked(key = "prices", fenced = true)
        @Transactional
        public Mono<Void> write() {
            return Mono.empty();
        }

    }

}
