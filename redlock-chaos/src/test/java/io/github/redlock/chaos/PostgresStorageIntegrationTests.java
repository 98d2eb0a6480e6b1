package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import io.github.redlock.test.RedisNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos run's storage on a real PostgreSQL, its fence on and off, with real fencing tokens from three real nodes, and
 * the checker over what it logged. The hazard: a holder that paused past its lease writes after the next holder did.
 * With the fence ({@code JdbcFence.advance} in the write's transaction), its transaction rolls back, the lock's row keeps
 * the next holder's write, and the checker finds no stale write; without it (the control, as {@code chaos.storageFence=false}
 * runs), the stale write lands over the next holder's, and the checker reports it.
 */
class PostgresStorageIntegrationTests {

    private static final List<RedisNode> nodes = new ArrayList<>();

    private static StorageServer server;

    private static Redlock redlock;

    @TempDir
    Path directory;

    private final List<String> history = new ArrayList<>();

    @BeforeAll
    static void start() {
        Capabilities.assume(Capabilities.POSTGRESQL, DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent(),
                "PostgreSQL is not installed (apt-get install postgresql): the tests of the chaos run's storage on it are skipped");
        server = StorageServer.start();
        for (int i = 0; i < 3; i++) {
            nodes.add(RedisNode.start());
        }
        redlock = Redlock.builder().nodes(nodes.stream().map(RedisNode::uri).toList()).fencing(true).keyPrefix("fenced:").build();
    }

    @AfterAll
    static void stop() {
        if (redlock != null) {
            redlock.close();
        }
        nodes.forEach(RedisNode::close);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theFenceRefusesAPausedHoldersWriteAfterTheNextHoldersAndTheLockKeepsTheNextHoldersValue() throws Exception {
        assertThat(server.description()).startsWith("PostgreSQL ");
        try (PostgresStorage storage = new PostgresStorage(server.uri(), true, 2)) {
            Storage.Outcome[] outcomes = pausedHolderWritesAfterTheNext(storage, "f:1");
            assertThat(outcomes[0].accepted()).as("the next holder's write").isTrue();
            assertThat(outcomes[1].accepted()).as("the paused holder's write").isFalse();
            assertThat(storage.valueOf("f:1")).as("the lock's row").isEqualTo("next-f:1");
            CheckReport report = check(storage, "f:1", true);
            assertThat(report.staleFencedWritesAccepted()).as(report.text()).isZero();
            assertThat(report.fencedWritesRefused()).as(report.text()).isEqualTo(1);
            assertThat(report.hasViolations()).as(report.text()).isFalse();
        }
    }

    @Test
    void withoutTheFenceThePausedHoldersStaleWriteLandsOverTheNextHoldersAndTheCheckerReportsIt() throws Exception {
        try (PostgresStorage storage = new PostgresStorage(server.uri(), false, 2)) {
            Storage.Outcome[] outcomes = pausedHolderWritesAfterTheNext(storage, "f:2");
            assertThat(outcomes[1].accepted()).as("the paused holder's write").isTrue();
            assertThat(outcomes[1].seq()).as("committed after the next holder's").isGreaterThan(outcomes[0].seq());
            assertThat(storage.valueOf("f:2")).as("the hazard: the lock's row holds the stale write").isEqualTo("paused-f:2");
            CheckReport report = check(storage, "f:2", false);
            assertThat(report.staleFencedWritesAccepted()).as(report.text()).isEqualTo(1);
            assertThat(report.fencedWritesRefused()).as(report.text()).isZero();
        }
    }

    /**
     * A holder takes the lock with a short lease and "pauses" (writes nothing) until the next holder, which waits for that
     * lease to run out, has taken the lock and written; then the paused holder writes with its older token.
     * @return the next holder's and the paused holder's outcomes
     */
    private Storage.Outcome[] pausedHolderWritesAfterTheNext(Storage storage, String lockKey) {
        long start = System.nanoTime();
        RedlockLease paused = redlock.acquire(lockKey, Duration.ofMillis(300), Duration.ZERO);
        long pausedGranted = System.nanoTime();
        long pausedValidEnd = ChaosClient.validEnd(paused, pausedGranted);
        long nextStart = System.nanoTime();
        RedlockLease next = redlock.acquire(lockKey, Duration.ofSeconds(10), Duration.ofSeconds(5));
        long nextGranted = System.nanoTime();
        long nextValidEnd = ChaosClient.validEnd(next, nextGranted);
        assertThat(next.fencingToken()).isGreaterThan(paused.fencingToken());
        Storage.Outcome nextWrite = storage.write(lockKey, "next-" + lockKey, next.fencingToken());
        Storage.Outcome pausedWrite = storage.write(lockKey, "paused-" + lockKey, paused.fencingToken());
        long released = System.nanoTime();
        next.release();
        grant(lockKey, "paused-" + lockKey, paused.fencingToken(), start, pausedGranted, pausedValidEnd, released);
        grant(lockKey, "next-" + lockKey, next.fencingToken(), nextStart, nextGranted, nextValidEnd, released);
        return new Storage.Outcome[] { nextWrite, pausedWrite };
    }

    private void grant(String lockKey, String lease, long token, long start, long granted, long validEnd, long release) {
        this.history.add(new History.Operation(0, this.history.size(), lockKey, History.Kind.FENCED, start, granted, History.Outcome.GRANTED,
                lease, token, validEnd, release).line());
    }

    /**
     * The checker over this test's grants and the storage's log of its writes (storage.tsv as a run dumps it, without the
     * other test's lock).
     */
    private CheckReport check(Storage storage, String lockKey, boolean fence) throws IOException {
        Path log = this.directory.resolve("storage.tsv");
        storage.dump(log);
        Files.write(log, Files.readAllLines(log).stream().filter((line) -> History.fields(line)[1].equals(lockKey)).toList());
        Files.write(this.directory.resolve("history-0.tsv"), this.history);
        Properties run = new Properties();
        run.setProperty("storage", server.description());
        run.setProperty("storageFence", Boolean.toString(fence));
        try (Writer out = Files.newBufferedWriter(this.directory.resolve("run.properties"))) {
            run.store(out, null);
        }
        return HistoryChecker.check(this.directory);
    }

}
