package io.github.redlock.core;

import java.time.Duration;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys held by another client on some nodes: the lock must neither be fooled nor touch them.
 */
class RedlockForeignStateIntegrationTests {

    private static final String KEY = "redlock:shared";

    private static final Duration FOREIGN_TTL = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void foreignValuesOnAMinorityDoNotPreventTheLock() {
        this.nodes.get().set(0, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(3, KEY, "foreign", FOREIGN_TTL);
        RedlockLease lease = this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(this.nodes.get().values(KEY)).containsExactly("foreign", lease.token(), lease.token(), "foreign", lease.token());
        assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
        assertThat(this.nodes.get().pttl(1, KEY)).isGreaterThan(25_000L);
        assertThat(lease.release()).isTrue();
    }

    @Test
    void foreignValuesOnAMinorityStayUntouched() {
        this.nodes.get().set(0, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(3, KEY, "foreign", FOREIGN_TTL);
        RedlockLease lease = this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ZERO);
        assertForeignUntouched(0, 3);

        lease.extend(Duration.ofSeconds(30));
        assertForeignUntouched(0, 3);

        lease.release();
        this.nodes.get().awaitValues(KEY, "foreign", null, null, "foreign", null);
        assertForeignUntouched(0, 3);
    }

    @Test
    void foreignValuesOnAMajorityPreventTheLock() {
        this.nodes.get().set(1, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(2, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(4, KEY, "foreign", FOREIGN_TTL);
        assertThat(this.redlock.get().tryAcquire("shared", Duration.ofSeconds(10))).isEmpty();
        assertThatExceptionOfType(RedlockAcquisitionException.class)
                .isThrownBy(() -> this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ofMillis(300)))
                .satisfies((ex) -> {
                    assertThat(ex.getAgreedNodes()).isEqualTo(2);
                    assertThat(ex.getNodeFailures()).hasSize(3);
                    assertThat(ex.getNodeFailures()).containsValue("held by another client");
                    assertThat(ex.getMessage()).contains("'shared'", "quorum is 3", "held by another client", "attempts");
                });
    }

    @Test
    void foreignValuesOnAMajorityLeaveNoKeyOnTheFreeNodes() {
        this.nodes.get().set(1, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(2, KEY, "foreign", FOREIGN_TTL);
        this.nodes.get().set(4, KEY, "foreign", FOREIGN_TTL);
        this.redlock.get().tryAcquire("shared", Duration.ofSeconds(10));
        this.nodes.get().awaitValues(KEY, null, "foreign", "foreign", null, "foreign");
        assertForeignUntouched(1, 2, 4);

        assertThatExceptionOfType(RedlockAcquisitionException.class)
                .isThrownBy(() -> this.redlock.get().acquire("shared", Duration.ofSeconds(10), Duration.ofMillis(300)));
        this.nodes.get().awaitValues(KEY, null, "foreign", "foreign", null, "foreign");
    }

    private void assertForeignUntouched(int... foreignNodes) {
        for (int node : foreignNodes) {
            assertThat(this.nodes.get().get(node, KEY)).isEqualTo("foreign");
            assertThat(this.nodes.get().pttl(node, KEY)).isBetween(50_000L, FOREIGN_TTL.toMillis());
        }
    }

}
