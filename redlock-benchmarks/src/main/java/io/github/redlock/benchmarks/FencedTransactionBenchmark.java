package io.github.redlock.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisNodes;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What {@code @Redlocked(fenced = true)} costs a transaction (issue 39): the same {@code @Transactional} method, one
 * {@code UPDATE} of the thread's own account row on a real PostgreSQL, as {@code fenced} (its commit advances the
 * fence of the lock's name, one {@code UPDATE} of {@code redlock_fence} more in the transaction), {@code unfenced}
 * (the same lock, no fence) and {@code transactionOnly} (no lock: the database's floor), each in a minimal Spring Boot
 * application ({@link FencedTransactionService}) on five local Redis nodes and a PostgreSQL server started per fork by
 * {@code redlock-test}, with Boot's HikariCP pool, so that no call opens a connection.
 * <p>
 * Fencing is on for both locked variants ({@code redlock.fencing=true}: every exclusive lease carries a token, which
 * costs its acquisition a second round), so that they differ by the fence's statement only. Each thread has its own
 * account and so its own key: no call waits for another. The node timeout is {@value #NODE_TIMEOUT_MILLIS} ms, not
 * the 50 ms of {@link LockUnlockBenchmark}: nothing is compared here at the timeout, and a call whose lock a stalled
 * machine refused would throw and end the fork.
 * <p>
 * The fence's statement is a few percent of a locked call, less than two forks of the same benchmark differ by on two
 * shared cores: {@code interleaved} makes a call of {@code fenced} and one of {@code unfenced} per invocation, in
 * alternating order, and times each call on its own ({@link Calls}), so that the load of every second falls on both
 * alike. The database's floor is measured in its fork only: right after a locked call, its statements would share the
 * CPUs with the work that call left running (its last nodes' replies).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FencedTransactionBenchmark {

    /** The node timeout of the lock, in milliseconds. */
    static final long NODE_TIMEOUT_MILLIS = 1000;

    private RedisNodes redis;

    private DatabaseServer database;

    private ConfigurableApplicationContext spring;

    private FencedTransactionService service;

    /**
     * Starts the nodes, the database and the application on them.
     * @throws IllegalStateException when PostgreSQL is not installed, or {@code @Redlocked} is not applied
     */
    @Setup(Level.Trial)
    public void start() {
        try {
            this.redis = RedisNodes.start(5);
            this.database = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL);
            this.spring = new SpringApplicationBuilder(FencedTransactionService.Application.class).web(WebApplicationType.NONE)
                    .logStartupInfo(false)
                    .properties("redlock.nodes=" + String.join(",", this.redis.uris()),
                            "redlock.node-timeout=" + NODE_TIMEOUT_MILLIS + "ms", "redlock.fencing=true",
                            "redlock.jdbc-fence.initialize-schema=always", "spring.datasource.url=" + this.database.jdbcUrl(),
                            "spring.datasource.username=" + this.database.username(), "spring.datasource.password=",
                            "logging.level.root=warn")
                    .run();
            this.service = this.spring.getBean(FencedTransactionService.class);
            if (!AopUtils.isAopProxy(this.service) || this.spring.getBeanNamesForType(JdbcFence.class).length != 1) {
                throw new IllegalStateException("@Redlocked(fenced = true) is not applied: the starter's auto-configuration or its "
                        + "JdbcFence was not found");
            }
        }
        catch (RuntimeException ex) {
            stop();
            throw ex;
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (this.spring != null) {
            this.spring.close();
            this.spring = null;
        }
        if (this.database != null) {
            this.database.close();
            this.database = null;
        }
        if (this.redis != null) {
            this.redis.close();
            this.redis = null;
        }
    }

    /** The application's bean, for tests. */
    FencedTransactionService service() {
        return this.service;
    }

    /** The application's fence, for tests. */
    JdbcFence fence() {
        return this.spring.getBean(JdbcFence.class);
    }

    /** The application, for tests. */
    ConfigurableApplicationContext context() {
        return this.spring;
    }

    /** The thread's own account, and so its own lock: no call waits for another thread's. */
    @State(Scope.Thread)
    public static class Account {

        private final String id = UUID.randomUUID().toString();

        /** The invocations of {@code interleaved} so far: which variant goes first. */
        private long invocations;

        /**
         * Creates the account's row.
         * @param benchmark the benchmark, whose application's database holds it
         */
        @Setup(Level.Trial)
        public void create(FencedTransactionBenchmark benchmark) {
            benchmark.service.createAccount(this.id);
        }

        String id() {
            return this.id;
        }

    }

    /**
     * What one thread's {@code interleaved} calls took in an iteration, which JMH reports per iteration beside its score
     * ({@code interleaved:fencedNanos}, {@code interleaved:fencedCalls} and the same of {@code unfenced}, summed over the
     * threads): each variant's mean time of a call is its nanoseconds over its calls.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Calls {

        /** The time of this iteration's {@code fenced} calls. */
        public long fencedNanos;

        /** This iteration's {@code fenced} calls. */
        public long fencedCalls;

        /** The time of this iteration's {@code unfenced} calls. */
        public long unfencedNanos;

        /** This iteration's {@code unfenced} calls. */
        public long unfencedCalls;

        /** Starts each iteration's counts at zero. */
        @Setup(Level.Iteration)
        public void clear() {
            this.fencedNanos = 0;
            this.fencedCalls = 0;
            this.unfencedNanos = 0;
            this.unfencedCalls = 0;
        }

        void record(long fencedNanos, long unfencedNanos) {
            this.fencedNanos += fencedNanos;
            this.fencedCalls++;
            this.unfencedNanos += unfencedNanos;
            this.unfencedCalls++;
        }

    }

    @Benchmark
    public void fenced(Account account) {
        this.service.fenced(account.id);
    }

    @Benchmark
    public void unfenced(Account account) {
        this.service.unfenced(account.id);
    }

    @Benchmark
    public void transactionOnly(Account account) {
        this.service.transactionOnly(account.id);
    }

    /**
     * A call of {@code fenced} and one of {@code unfenced}, each timed on its own, {@code fenced} first in every other
     * invocation: each is as often first, and as often follows a call of the other. JMH's own score is the mean of the
     * two; the variants' figures are {@link Calls}'.
     * @param account the thread's account
     * @param calls the thread's times of each variant
     */
    @Benchmark
    @OperationsPerInvocation(2)
    public void interleaved(Account account, Calls calls) {
        boolean fencedFirst = (account.invocations++ & 1) == 0;
        long start = System.nanoTime();
        call(fencedFirst, account.id);
        long between = System.nanoTime();
        call(!fencedFirst, account.id);
        long end = System.nanoTime();
        calls.record(fencedFirst ? between - start : end - between, fencedFirst ? end - between : between - start);
    }

    private void call(boolean fenced, String account) {
        if (fenced) {
            this.service.fenced(account);
        }
        else {
            this.service.unfenced(account);
        }
    }

}
