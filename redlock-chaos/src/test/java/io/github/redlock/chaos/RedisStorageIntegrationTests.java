package io.github.redlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;

import io.github.redlock.test.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The storage of a machine without PostgreSQL, on a real {@code redis-server}: its script refuses a fenced write whose
 * token is below one it accepted for the lock, as {@code JdbcFence} does, unless the fence is off (the control); a write
 * without a token is accepted unchecked; its log keeps its order.
 */
class RedisStorageIntegrationTests {

    @TempDir
    Path directory;

    @Test
    void theScriptRefusesATokenBelowTheLocksFenceUnlessTheFenceIsOff() throws Exception {
        try (RedisNode node = RedisNode.start(); Storage fenced = new RedisStorage(node.uri(), true);
                Storage unfenced = new RedisStorage(node.uri(), false)) {
            assertThat(fenced.write("f:1", "next", 7).accepted()).isTrue();
            assertThat(fenced.write("f:1", "next", 7).accepted()).as("the same holder again").isTrue();
            assertThat(fenced.write("f:1", "paused", 5).accepted()).as("a stale token").isFalse();
            assertThat(fenced.write("x:1", "a", -1).accepted()).as("no token").isTrue();
            assertThat(unfenced.write("f:2", "next", 7).accepted()).isTrue();
            assertThat(unfenced.write("f:2", "paused", 5).accepted()).as("the control: no fence").isTrue();
            Path log = this.directory.resolve("storage.tsv");
            fenced.dump(log);
            assertThat(Files.readAllLines(log)).containsExactly("1\tf:1\tnext\t7\t1", "2\tf:1\tnext\t7\t1", "3\tf:1\tpaused\t5\t0",
                    "4\tx:1\ta\t-1\t1", "5\tf:2\tnext\t7\t1", "6\tf:2\tpaused\t5\t1");
        }
    }

}
