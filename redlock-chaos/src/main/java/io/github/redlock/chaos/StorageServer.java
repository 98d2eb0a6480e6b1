package io.github.redlock.chaos;

import java.io.IOException;
import java.nio.file.Path;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisNode;

/**
 * The server of a run's {@link Storage}: a real PostgreSQL ({@link DatabaseServer}, on a free loopback port, its tables
 * created before the clients start) where it is installed; else a {@code redis-server}, with a message, unless the
 * build requires PostgreSQL ({@link Capabilities#POSTGRESQL}), which then fails the run. Stopped, with its files, by
 * {@link #close()}.
 */
final class StorageServer implements AutoCloseable {

    private final DatabaseServer database;

    private final RedisNode node;

    private final String uri;

    private final String description;

    private StorageServer(DatabaseServer database, RedisNode node, String uri, String description) {
        this.database = database;
        this.node = node;
        this.uri = uri;
        this.description = description;
    }

    /** Starts the storage's server: PostgreSQL where it is installed (see the class comment). */
    static StorageServer start() {
        if (DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent()) {
            DatabaseServer database = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL);
            try {
                String uri = database.jdbcUrl() + "?user=" + database.username();
                try (PostgresStorage storage = new PostgresStorage(uri, true, 1)) {
                    storage.createTables();
                    return new StorageServer(database, null, uri, "PostgreSQL " + storage.version());
                }
            }
            catch (RuntimeException ex) {
                database.close();
                throw ex;
            }
        }
        if (Capabilities.required(Capabilities.POSTGRESQL)) {
            throw new IllegalStateException("PostgreSQL is not installed (apt-get install postgresql), and this build requires the "
                    + "chaos run's storage on it (" + Capabilities.VARIABLE + ")");
        }
        System.out.println("PostgreSQL is not installed (apt-get install postgresql): the storage is a redis-server, whose script "
                + "checks fencing tokens as JdbcFence would");
        RedisNode node = RedisNode.start();
        return new StorageServer(null, node, node.uri(), "redis-server");
    }

    /** Where the clients find the storage ({@link Storage#open}). */
    String uri() {
        return this.uri;
    }

    /** What the storage is, for the report: {@code PostgreSQL 15.14} or {@code redis-server}. */
    String description() {
        return this.description;
    }

    /** Writes the storage's log of writes, in its order, to {@code file} ({@code storage.tsv}). */
    void dump(Path file) throws IOException {
        try (Storage storage = Storage.open(this.uri, true, 1)) {
            storage.dump(file);
        }
    }

    @Override
    public void close() {
        if (this.database != null) {
            this.database.close();
        }
        if (this.node != null) {
            this.node.close();
        }
    }

}
