package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys held by another client on some nodes: the lock must neither be fooled nor touch them.
 */
class RedlockForeignStateTests {

    private static final String KEY = "redlock:shared";

    private static final Duration FOREIGN_TTL = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private Redlock redlock;

    private NodeInspector nodes;

    @BeforeEach
    void setUp() {
        this.redlock = Redlock.builder().nodes(redis.uris()).build();
        this.nodes = new NodeInspector(redis.uris());
    }

    @AfterEach
    void tearDown() {
        this.redlock.close();
        this.nodes.close();
    }

    @Test
    void foreignValuesOnAMinorityDoNotPreventTheLockAndStayUntouched() {
        this.nodes.set(0, KEY, "foreign", FOREIGN_TTL);
        this.nodes.set(3, KEY, "foreign", FOREIGN_TTL);
        RedlockLease lease = this.redlock.acquire("shared", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(this.nodes.values(KEY)).containsExactly("foreign", lease.token(), lease.token(), "foreign", lease.token());
        assertForeignUntouched(0, 3);

        assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
        assertForeignUntouched(0, 3);
        assertThat(this.nodes.pttl(1, KEY)).isGreaterThan(25_000L);

        assertThat(lease.release()).isTrue();
        this.nodes.awaitValues(KEY, "foreign", null, null, "foreign", null);
        assertForeignUntouched(0, 3);
    }

    @Test
    void foreignValuesOnAMajorityPreventTheLockAndLeaveNoKeyOnTheFreeNodes() {
        this.nodes.set(1, KEY, "foreign", FOREIGN_TTL);
        this.nodes.set(2, KEY, "foreign", FOREIGN_TTL);
        this.nodes.set(4, KEY, "foreign", FOREIGN_TTL);
        assertThat(this.redlock.tryAcquire("shared", Duration.ofSeconds(10))).isEmpty();
        this.nodes.awaitValues(KEY, null, "foreign", "foreign", null, "foreign");
        assertForeignUntouched(1, 2, 4);

        assertThatExceptionOfType(RedlockAcquisitionException.class)
                .isThrownBy(() -> this.redlock.acquire("shared", Duration.ofSeconds(10), Duration.ofMillis(300)))
                .satisfies((ex) -> {
                    assertThat(ex.getAgreedNodes()).isEqualTo(2);
                    assertThat(ex.getNodeFailures()).hasSize(3);
                    assertThat(ex.getNodeFailures()).containsValue("held by another client");
                    assertThat(ex.getMessage()).contains("'shared'", "quorum is 3", "held by another client", "attempts");
                });
        this.nodes.awaitValues(KEY, null, "foreign", "foreign", null, "foreign");
    }

    private void assertForeignUntouched(int... foreignNodes) {
        for (int node : foreignNodes) {
            assertThat(this.nodes.get(node, KEY)).isEqualTo("foreign");
            assertThat(this.nodes.pttl(node, KEY)).isBetween(50_000L, FOREIGN_TTL.toMillis());
        }
    }

}
