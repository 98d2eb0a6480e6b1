package io.github.redlock.autoconfigure.fencing;

import javax.sql.DataSource;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockProperties;
import io.github.redlock.fencing.JdbcFence;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of {@link JdbcFence}: a bean when fencing is on
 * ({@code redlock.fencing=true}) and the application has one {@code DataSource}, with its table created as
 * {@code redlock.jdbc-fence.initialize-schema} says (by default in an embedded database only).
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcTemplate.class, EmbeddedDatabaseConnection.class })
@ConditionalOnBean(RedlockProperties.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty("redlock.fencing")
public final class RedlockJdbcFenceAutoConfiguration {

    RedlockJdbcFenceAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    JdbcFence jdbcFence(DataSource dataSource, RedlockProperties properties) {
        RedlockProperties.JdbcFence settings = properties.getJdbcFence();
        JdbcFence fence = new JdbcFence(dataSource, settings.getTableName());
        RedlockProperties.InitializeSchema mode = settings.getInitializeSchema();
        if (mode == RedlockProperties.InitializeSchema.ALWAYS
                || (mode == RedlockProperties.InitializeSchema.EMBEDDED && EmbeddedDatabaseConnection.isEmbedded(dataSource))) {
            fence.createTable();
        }
        return fence;
    }

}
