package io.github.redlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
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
class ClockJumpLimitIntegrationTests {

    @Test
    void aClockJumpOnOneNodeOfABareMajorityLetsTwoClientsHoldTheLock(@TempDir Path directory) throws Exception {
        try (FakedClockNodes nodes = FakedClockNodes.start(directory, "+0s")) {
            List<String> uris = nodes.uris();
            try (Redlock first = Redlock.builder().nodes(uris).fencing(true).build()) {
                nodes.node(0).cutOff();
                nodes.node(1).cutOff();
                RedlockLease held = first.acquire("limit", Duration.ofSeconds(10), Duration.ofSeconds(5));
                nodes.setClock("+30s"); // node 4's clock jumps: its copy of the key expires now
                nodes.node(0).heal();
                nodes.node(1).heal();
                try (Redlock second = Redlock.builder().nodes(uris).fencing(true).build()) {
                    Optional<RedlockLease> also = second.tryAcquire("limit", Duration.ofSeconds(10), Duration.ofSeconds(5));
                    assertThat(also).as("the second client's lease").isPresent();
                    assertThat(held.isValid()).as("the first lease is still valid while the second client holds the lock").isTrue();
                    assertThat(also.get().fencingToken()).as("the second holder's fencing token").isGreaterThan(held.fencingToken());
                }
            }
        }
    }

}
