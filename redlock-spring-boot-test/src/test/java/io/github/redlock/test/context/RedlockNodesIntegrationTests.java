package io.github.redlock.test.context;

import java.time.Duration;
import java.util.Optional;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RedlockNodes @RedlockNodes} as a user's test uses it: the application's {@link Redlock} on real nodes that
 * the test faults. {@code redlock.nodes} names a port where nothing listens, to show that the nodes win.
 */
@SpringBootTest(properties = "redlock.nodes=redis://127.0.0.1:1")
@RedlockNodes(count = 3)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedlockNodesIntegrationTests {

    private static final Duration TTL = Duration.ofSeconds(30);

    @Autowired
    private Redlock redlock;

    @Autowired
    private RedisNodes nodes;

    @Autowired
    private Environment environment;

    @Test
    void pointsTheRedlockAtTheStartedNodesInsteadOfTheProperty() {
        assertThat(this.nodes.size()).isEqualTo(3);
        assertThat(this.redlock.nodeStatuses()).containsOnlyKeys(this.nodes.nodes().stream().map(RedisNode::hostAndPort).toList());
        try (RedlockLease lease = this.redlock.tryAcquire("order:1", TTL).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
            assertThat(this.redlock.tryAcquire("order:1", TTL)).isEmpty();
        }
    }

    @Test
    void acquiresWithAQuorumWhileOneNodeIsPaused() {
        this.nodes.node(1).pause();
        try (RedlockLease lease = this.redlock.tryAcquire("order:2", TTL).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void refusesTheLockWhenAMajorityOfNodesIsDown() {
        this.nodes.node(0).kill();
        this.nodes.node(2).kill();
        assertThat(this.redlock.tryAcquire("order:3", TTL)).isEmpty();
        assertThatExceptionOfType(RedlockAcquisitionException.class)
                .isThrownBy(() -> this.redlock.acquire("order:3", TTL, Duration.ZERO))
                .satisfies((ex) -> assertThat(ex.getMessage()).contains(this.nodes.node(0).hostAndPort()));
    }

    @Test
    @Order(1)
    void leavesALockAndFaultsBehind() {
        Optional<RedlockLease> kept = this.redlock.tryAcquire("left-behind", TTL);
        assertThat(kept).isPresent();
        this.nodes.node(0).kill();
        this.nodes.node(1).pause();
        this.nodes.node(2).restart();
    }

    @Test
    @Order(2)
    void startsWithEveryNodeRunningVotingAndEmpty() {
        assertThat(this.nodes.nodes()).allSatisfy((node) -> {
            assertThat(node.isRunning()).isTrue();
            assertThat(node.isPaused()).isFalse();
        });
        assertThat(this.redlock.nodeStatuses().values()).extracting(NodeStatus::state).containsOnly(NodeStatus.State.UP);
        try (RedlockLease lease = this.redlock.tryAcquire("left-behind", TTL).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void turnsTheRestartQuarantineOffUnlessTheTestSaysOtherwise() {
        assertThat(this.environment.getProperty("redlock.restart-quarantine")).isEqualTo("never");
    }

}
