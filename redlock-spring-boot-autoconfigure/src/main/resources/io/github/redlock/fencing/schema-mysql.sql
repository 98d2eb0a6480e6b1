-- The table of JdbcFence (io.github.redlock.fencing): one fence per resource, the highest fencing token a holder
-- wrote with. Under another name (new JdbcFence(dataSource, table)), rename it here too.
CREATE TABLE IF NOT EXISTS redlock_fence (
    resource VARCHAR(255) NOT NULL PRIMARY KEY,
    token BIGINT NOT NULL
);
