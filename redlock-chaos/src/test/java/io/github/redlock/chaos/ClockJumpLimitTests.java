package io.github.redlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Redlock does not protect against, shown on real nodes: the critique's example of a clock that jumps on
 * one node of a holder that has a bare majority. Nodes 0 and 1 are cut off while the first client locks on 2, 3
 * and 4; node 4's clock jumps past the ttl, so its key expires at once; nodes 0 and 1 come back, and a second
 * client locks on 0, 1 and 4 while the first one's lease is still valid. Fencing still orders their writes, as
 * node 4's fencing counter is in both majorities.
 */
class ClockJumpLimitTests {

    private final List<RedisNode> nodes = new ArrayList<>();

    @AfterEach
    void stopNodes() {
        this.nodes.forEach(RedisNode::close);
    }

    @Test
    void aClockJumpOnOneNodeOfABareMajorityLetsTwoClientsHoldTheLock(@TempDir Path directory) throws Exception {
        Path faketime = ChaosRun.faketime().orElse(null);
        Assumptions.assumeTrue(faketime != null, "libfaketime is not installed (apt-get install libfaketime)");
        Path clock = directory.resolve("clock-offset");
        Files.writeString(clock, "+0s\n");
        for (int i = 0; i < 4; i++) {
            this.nodes.add(RedisNode.start());
        }
        this.nodes.add(RedisNode.startShipped(Map.of("LD_PRELOAD", faketime.toString(), "FAKETIME_TIMESTAMP_FILE", clock.toString(),
                "FAKETIME_NO_CACHE", "1")));
        List<String> uris = this.nodes.stream().map(RedisNode::uri).toList();
        try (Redlock first = Redlock.builder().nodes(uris).fencing(true).build()) {
            this.nodes.get(0).cutOff();
            this.nodes.get(1).cutOff();
            RedlockLease held = first.acquire("limit", Duration.ofSeconds(10), Duration.ofSeconds(5));
            Files.writeString(clock, "+30s\n"); // node 4's clock jumps: its copy of the key expires now
            this.nodes.get(0).heal();
            this.nodes.get(1).heal();
            try (Redlock second = Redlock.builder().nodes(uris).fencing(true).build()) {
                Optional<RedlockLease> also = second.tryAcquire("limit", Duration.ofSeconds(10), Duration.ofSeconds(5));
                assertThat(also).as("the second client's lease").isPresent();
                assertThat(held.isValid()).as("the first lease is still valid while the second client holds the lock").isTrue();
                assertThat(also.get().fencingToken()).as("the second holder's fencing token").isGreaterThan(held.fencingToken());
            }
        }
    }

}
