package io.github.redlock.fencing;

import javax.sql.DataSource;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.fencing.RedlockJdbcFenceAutoConfiguration;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link JdbcFence} bean: present with fencing on and a {@code DataSource}, its table created in an embedded
 * database by default, in any database with {@code redlock.jdbc-fence.initialize-schema=always}, never otherwise.
 */
class RedlockJdbcFenceAutoConfigurationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, RedlockAutoConfiguration.class,
                    RedlockJdbcFenceAutoConfiguration.class))
            .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.restart-quarantine=never");

    @Test
    void withFencingOnAnEmbeddedDatabaseGetsItsTableAndTheFenceRefusesAStaleToken() {
        this.runner.withPropertyValues("redlock.fencing=true").withBean(DataSource.class, () -> h2("fences")).run((context) -> {
            JdbcFence fence = context.getBean(JdbcFence.class);
            fence.advance("account:42", 20);
            fence.advance("account:42", 20);
            assertThatThrownBy(() -> fence.advance("account:42", 10)).isInstanceOf(StaleFencingTokenException.class);
            assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT token FROM redlock_fence WHERE resource = 'account:42'",
                    Long.class)).isEqualTo(20);
        });
    }

    @Test
    void withoutFencingThereIsNoFence() {
        this.runner.withBean(DataSource.class, () -> h2("nofences")).run((context) -> assertThat(context)
                .hasNotFailed().doesNotHaveBean(JdbcFence.class));
    }

    @Test
    void aServerDatabaseGetsTheTableOnlyWhenAskedAndUnderTheConfiguredName() {
        Capabilities.assume(Capabilities.POSTGRESQL, DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent(),
                "PostgreSQL is not installed (apt-get install postgresql): its schema test is skipped");
        try (DatabaseServer postgres = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL)) {
            ApplicationContextRunner onPostgres = this.runner.withPropertyValues("redlock.fencing=true")
                    .withBean(DataSource.class, () -> new SimpleDriverDataSource(new org.postgresql.Driver(), postgres.jdbcUrl(), postgres.username(), ""));
            onPostgres.run((context) -> assertThat(tables(context)).as("by default: embedded only").isZero());
            onPostgres.withPropertyValues("redlock.jdbc-fence.initialize-schema=always", "redlock.jdbc-fence.table-name=app_fences")
                    .run((context) -> {
                        assertThat(tables(context)).isOne();
                        context.getBean(JdbcFence.class).advance("nightly", 5);
                        assertThat(context.getBean(JdbcFence.class).fence("nightly")).isEqualTo(5);
                    });
            onPostgres.withPropertyValues("redlock.jdbc-fence.table-name=app fences; DROP TABLE x").run((context) -> assertThat(context)
                    .getFailure().rootCause().hasMessageContaining("table must be a plain SQL name"));
        }
    }

    private static DataSource h2(String name) {
        return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).setName(name).build();
    }

    private static int tables(org.springframework.context.ApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT count(*) FROM information_schema.tables WHERE table_name IN ('redlock_fence', 'app_fences')",
                Integer.class);
    }

}
