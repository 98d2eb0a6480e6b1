package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The hazard: with {@code @Transactional} and {@code @Redlocked} on one method, a lock released before the
 * commit lets the next holder read the state before this holder's write is committed. The aspect must run
 * outside the transaction: lock, begin, body, commit or roll back, unlock. Checked on three real nodes and
 * an H2 database, from the transaction's own completion callback.
 */
class RedlockedTransactionIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withUserConfiguration(AccountsConfiguration.class)
                // A patient node timeout: a release that gave up on a loaded machine's slow answers would leave the
                // key on the nodes for the completion callback to see.
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.node-timeout=2s");
    }

    @Test
    void theLockIsStillHeldWhenTheTransactionCommits() {
        runner().withUserConfiguration(DefaultOrderTransactions.class).run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            accounts.deposit("a", 10);
            assertThat(accounts.balance("a")).isEqualTo(10);
            assertThat(accounts.completions()).containsExactly("committed, lock held by a quorum");
            context.getBean(NodeKeys.class).awaitGone("redlock:account:a", Duration.ofSeconds(5));
        });
    }

    @Test
    void theLockIsStillHeldWhenTheTransactionRollsBack() {
        runner().withUserConfiguration(DefaultOrderTransactions.class).run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThatIllegalArgumentException().isThrownBy(() -> accounts.deposit("a", -1));
            assertThat(accounts.balance("a")).isZero();
            assertThat(accounts.completions()).containsExactly("rolled back, lock held by a quorum");
            context.getBean(NodeKeys.class).awaitGone("redlock:account:a", Duration.ofSeconds(5));
        });
    }

    @Test
    void aspectOrderBelowAChangedTransactionOrderKeepsTheLockUntilTheCommit() {
        // The control: with @EnableTransactionManagement(order = 100), the default order runs inside the transaction.
        runner().withUserConfiguration(EarlyTransactions.class).run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            accounts.deposit("a", 10);
            // Released before the commit: a release returns once a quorum answered, so one node may not have yet.
            assertThat(accounts.completions()).singleElement().asString().startsWith("committed, lock not held by a quorum");
        });
        runner().withUserConfiguration(EarlyTransactions.class).withPropertyValues("redlock.aspect-order=99").run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            accounts.deposit("a", 10);
            assertThat(accounts.completions()).containsExactly("committed, lock held by a quorum");
        });
    }

    @Test
    void theAspectWrapsADefaultTransactionByDefault() {
        runner().run((context) -> assertThat(context.getBean(RedlockedAspect.class).getOrder())
                .isEqualTo(Ordered.LOWEST_PRECEDENCE - 1));
    }

    @Test
    void aspectOrderIsTheAspectsOrder() {
        runner().withPropertyValues("redlock.aspect-order=-5").run((context) -> assertThat(
                context.getBean(RedlockedAspect.class).getOrder()).isEqualTo(-5));
    }

    @Test
    void anAspectOrderThatIsNotANumberFailsTheStartup() {
        runner().withPropertyValues("redlock.aspect-order=first").run((context) -> {
            // Boot's failure analysis reports the BindException it finds among the causes.
            List<Throwable> causes = Stream.iterate(context.getStartupFailure(), Objects::nonNull, Throwable::getCause).toList();
            assertThat(causes).anySatisfy((cause) -> assertThat(cause).isInstanceOf(BindException.class)
                    .hasMessageContaining("redlock.aspect-order"));
        });
    }

    /** Deposits under both annotations, recording from the transaction's completion how many nodes held the lock. */
    static class Accounts {

        @Autowired
        JdbcTemplate jdbc;

        @Autowired
        NodeKeys keys;

        private final List<String> completions = new CopyOnWriteArrayList<>();

        @Transactional
        @Redlocked(key = "account:#{#id}", ttl = "10s")
        public void deposit(String id, int amount) {
            this.jdbc.update("update account set balance = balance + ? where id = ?", amount, id);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

                @Override
                public void afterCompletion(int status) {
                    String outcome = (status == STATUS_COMMITTED) ? "committed" : "rolled back";
                    int holding = Accounts.this.keys.holding("redlock:account:" + id);
                    record(outcome + ((holding >= 2) ? ", lock held by a quorum"
                            : ", lock not held by a quorum (held on " + holding + " node(s))"));
                }

            });
            if (amount < 0) {
                throw new IllegalArgumentException("a deposit must not be negative: " + amount);
            }
        }

        public int balance(String id) {
            return this.jdbc.queryForObject("select balance from account where id = ?", Integer.class, id);
        }

        public List<String> completions() {
            return List.copyOf(this.completions);
        }

        void record(String completion) {
            this.completions.add(completion);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AccountsConfiguration {

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        @Bean(destroyMethod = "close")
        NodeKeys nodeKeys() {
            return new NodeKeys(redis.uris());
        }

        @Bean(destroyMethod = "shutdown")
        org.springframework.jdbc.datasource.embedded.EmbeddedDatabase dataSource() {
            return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true)
                    .addScript("classpath:io/github/redlock/aop/accounts.sql").build();
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class DefaultOrderTransactions {

    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 100)
    static class EarlyTransactions {

    }

}
