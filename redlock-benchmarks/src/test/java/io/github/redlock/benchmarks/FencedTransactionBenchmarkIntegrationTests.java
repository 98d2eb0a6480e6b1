package io.github.redlock.benchmarks;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FencedTransactionBenchmark} measures what it says, in a few dozen calls instead of a JMH run, on real nodes and
 * a real PostgreSQL: every call of every variant commits its {@code UPDATE}; the fenced calls, and only they, advance
 * the fence of the lock's name, each to its lease's token; the connections come from a pool; {@code interleaved} times
 * as many calls of each of its two variants.
 */
class FencedTransactionBenchmarkIntegrationTests {

    private static final int CALLS = 20;

    @Test
    void everyCallCommitsItsUpdateAndOnlyTheFencedOnesAdvanceTheFence() {
        Capabilities.assume(Capabilities.POSTGRESQL, DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent(),
                "PostgreSQL is not installed (apt-get install postgresql): the fenced transaction benchmark's test is skipped");
        FencedTransactionBenchmark benchmark = new FencedTransactionBenchmark();
        benchmark.start();
        try {
            assertThat(benchmark.context().getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
            FencedTransactionBenchmark.Account account = new FencedTransactionBenchmark.Account();
            account.create(benchmark);
            JdbcFence fence = benchmark.fence();
            String lock = "bench:" + account.id();
            for (int i = 0; i < CALLS; i++) {
                benchmark.unfenced(account);
                benchmark.transactionOnly(account);
            }
            assertThat(fence.fence(lock)).as("the fence after unfenced calls only").isZero();
            assertThat(benchmark.service().amount(account.id())).isEqualTo(2 * CALLS);
            benchmark.fenced(account);
            long first = fence.fence(lock);
            assertThat(first).as("the fence after a fenced call").isPositive();
            FencedTransactionBenchmark.Calls calls = new FencedTransactionBenchmark.Calls();
            for (int i = 0; i < CALLS; i++) {
                benchmark.interleaved(account, calls);
            }
            assertThat(calls.fencedCalls).isEqualTo(CALLS);
            assertThat(calls.unfencedCalls).isEqualTo(CALLS);
            assertThat(calls.fencedNanos).isPositive();
            assertThat(calls.unfencedNanos).isPositive();
            assertThat(fence.fence(lock)).as("advanced by each fenced call to its lease's token").isGreaterThanOrEqualTo(first + CALLS);
            assertThat(benchmark.service().amount(account.id())).isEqualTo(2 * CALLS + 1 + 2 * CALLS);
        }
        finally {
            benchmark.stop();
        }
    }

}
