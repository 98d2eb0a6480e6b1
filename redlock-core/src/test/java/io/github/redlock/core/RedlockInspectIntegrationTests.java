package io.github.redlock.core;

import java.time.Duration;
import java.util.List;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who holds a lock, on three real nodes: every lease's token names its holder's instance id, and {@link Redlock#inspect}
 * reads per node what it holds, without writing. The holder and the operator are two instances of an application.
 */
class RedlockInspectIntegrationTests {

    private static final String HOLDER_ID = "orders@host-1:4242";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @RegisterExtension
    final RedisClientExtension<Redlock> holder = RedisClientExtension.of(redis,
            (uris) -> TestSupport.patientBuilder().nodes(uris).instanceId(HOLDER_ID).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> operator = RedisClientExtension.of(redis, (uris) -> TestSupport.patientBuilder().nodes(uris).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void anExclusiveLockShowsItsHolderOnEveryNodeAndIsFreeAgainAfterItsRelease() {
        RedlockLease lease = this.holder.get().acquire("report", Duration.ofSeconds(30), Duration.ZERO);
        assertThat(lease.token()).startsWith(HOLDER_ID + ":");
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("report").nodes().stream()
                .allMatch((node) -> node.state() == LockInspection.State.HELD));
        LockInspection inspection = this.operator.get().inspect("report");
        assertThat(inspection.key()).isEqualTo("report");
        assertThat(inspection.held()).isTrue();
        assertThat(inspection.holder()).isEqualTo(HOLDER_ID);
        assertThat(inspection.nodes()).hasSize(3).allSatisfy((node) -> {
            assertThat(node.state()).isEqualTo(LockInspection.State.HELD);
            assertThat(node.kind()).isEqualTo(LockInspection.Kind.EXCLUSIVE);
            assertThat(node.holder()).isEqualTo(HOLDER_ID);
            assertThat(node.remainingMillis()).isBetween(1L, 30_000L);
        });
        assertThat(inspection.nodes()).extracting(LockInspection.Node::node).containsExactly(redis.node(0).hostAndPort(), redis.node(1).hostAndPort(),
                redis.node(2).hostAndPort());
        assertThat(lease.release()).isTrue();
        awaitFree("report");
    }

    @Test
    void readersAndAWriterShowAsSuchAndAMultiKeyLockAsEachOfItsKeys() {
        RedlockLease first = this.holder.get().acquireRead("catalog", Duration.ofSeconds(30), Duration.ZERO);
        RedlockLease second = this.operator.get().acquireRead("catalog", Duration.ofSeconds(30), Duration.ZERO);
        // An acquisition returns at a quorum: the last node's entry may land a moment later.
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("catalog").nodes().stream()
                .allMatch((node) -> node.readers() == 2));
        LockInspection read = this.operator.get().inspect("catalog");
        assertThat(read.held()).isTrue();
        assertThat(read.holder()).as("readers have no one holder").isNull();
        assertThat(read.nodes()).allSatisfy((node) -> {
            assertThat(node.kind()).isEqualTo(LockInspection.Kind.READ);
            assertThat(node.readers()).isEqualTo(2);
            assertThat(node.remainingMillis()).isBetween(1L, 30_000L);
        });
        first.release();
        second.release();
        awaitFree("catalog"); // a release returns at a quorum too
        RedlockLease writer = this.holder.get().acquireWrite("catalog", Duration.ofSeconds(30), Duration.ZERO);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("catalog").nodes().stream()
                .allMatch((node) -> node.kind() == LockInspection.Kind.WRITE));
        LockInspection write = this.operator.get().inspect("catalog");
        assertThat(write.held()).isTrue();
        assertThat(write.holder()).isEqualTo(HOLDER_ID);
        assertThat(write.nodes()).extracting(LockInspection.Node::kind).containsOnly(LockInspection.Kind.WRITE);
        writer.release();
        RedlockLease both = this.holder.get().acquire(List.of("a", "b"), Duration.ofSeconds(30), Duration.ZERO);
        assertThat(this.operator.get().inspect("b").holder()).isEqualTo(HOLDER_ID);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("b").nodes().stream()
                .allMatch((node) -> node.kind() == LockInspection.Kind.EXCLUSIVE && HOLDER_ID.equals(node.holder())));
        both.release();
    }

    @Test
    void aForeignTokenShowsAsHeldByAnUnknownHolderAndAStoppedNodeAsDown() {
        for (int i = 0; i < 3; i++) {
            this.nodes.get().command(i, "SET", "redlock:legacy", "f3a9c2e1b7d84e6a", "PX", "30000"); // another Redlock client's token
        }
        redis.node(2).kill();
        LockInspection inspection = this.operator.get().inspect("legacy");
        assertThat(inspection.held()).isTrue();
        assertThat(inspection.holder()).isEqualTo(LockInspection.UNKNOWN_HOLDER);
        assertThat(inspection.nodes().get(0).holder()).isEqualTo(LockInspection.UNKNOWN_HOLDER);
        assertThat(inspection.nodes().get(2).state()).isEqualTo(LockInspection.State.DOWN);
        assertThat(inspection.nodes().get(2).kind()).isNull();
    }

    @Test
    void aRevokeForAnExpectedHolderFreesOnlyThatHoldersLock() {
        RedlockLease lease = this.holder.get().acquire("stuck", Duration.ofSeconds(30), Duration.ZERO);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("stuck").nodes().stream()
                .allMatch((node) -> node.state() == LockInspection.State.HELD)); // an acquisition returns at a quorum
        assertThat(this.operator.get().revoke("stuck", "orders@host-2:1")).as("nodes freed for another holder").isZero();
        assertThat(this.operator.get().inspect("stuck").holder()).isEqualTo(HOLDER_ID);
        assertThat(this.operator.get().revoke("stuck", HOLDER_ID)).isEqualTo(3);
        assertThat(this.operator.get().inspect("stuck").held()).isFalse();
        assertThat(lease.extend(Duration.ofSeconds(30))).as("the revoked holder's extension").isFalse();
        for (int i = 0; i < 3; i++) {
            this.nodes.get().command(i, "SET", "redlock:foreign", "f3a9c2e1b7d84e6a", "PX", "30000");
        }
        assertThat(this.operator.get().revoke("foreign", HOLDER_ID)).as("another client's lock names no holder").isZero();
        assertThat(this.operator.get().inspect("foreign").held()).isTrue();
        assertThatThrownBy(() -> this.operator.get().revoke("foreign", " ")).isInstanceOfSatisfying(RedlockArgumentException.class,
                (ex) -> assertThat(ex.getArgument()).isEqualTo("expectedHolder"));
    }

    @Test
    void aRefusedAcquisitionNamesTheInstanceThatHoldsTheLock() {
        RedlockLease lease = this.holder.get().acquire("busy", Duration.ofSeconds(30), Duration.ZERO);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("busy").nodes().stream()
                .allMatch((node) -> node.state() == LockInspection.State.HELD));
        assertThatThrownBy(() -> this.operator.get().acquire("busy", Duration.ofSeconds(5), Duration.ZERO))
                .isInstanceOfSatisfying(RedlockAcquisitionException.class, (ex) -> assertThat(ex.getHolder()).contains(HOLDER_ID))
                .hasMessageContaining("held by " + HOLDER_ID);
        assertThat(this.operator.get().acquireAsync("busy", Duration.ofSeconds(5), Duration.ofMillis(200)))
                .failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RedlockAcquisitionException.class, (ex) -> assertThat(ex.getHolder()).contains(HOLDER_ID));
        lease.release();
        for (int i = 0; i < 3; i++) {
            this.nodes.get().command(i, "SET", "redlock:other-client", "f3a9c2e1b7d84e6a", "PX", "30000");
        }
        assertThatThrownBy(() -> this.operator.get().acquire("other-client", Duration.ofSeconds(5), Duration.ZERO))
                .isInstanceOfSatisfying(RedlockAcquisitionException.class,
                        (ex) -> assertThat(ex.getHolder()).contains(LockInspection.UNKNOWN_HOLDER));
        // Held by two instances, one node each: no quorum names one holder.
        this.nodes.get().command(0, "SET", "redlock:split", HOLDER_ID + ":" + "A".repeat(22), "PX", "30000");
        this.nodes.get().command(1, "SET", "redlock:split", "billing@host-2:5:" + "B".repeat(22), "PX", "30000");
        assertThatThrownBy(() -> this.operator.get().acquire("split", Duration.ofSeconds(5), Duration.ZERO))
                .isInstanceOfSatisfying(RedlockAcquisitionException.class, (ex) -> assertThat(ex.getHolder()).isEmpty());
    }

    @Test
    void anInspectionOnlyReads() {
        RedlockLease lease = this.holder.get().acquire("batch", Duration.ofSeconds(30), Duration.ZERO);
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> this.operator.get().inspect("batch").nodes().stream()
                .allMatch((node) -> node.state() == LockInspection.State.HELD));
        String before = keys(0);
        LockInspection first = this.operator.get().inspect("batch");
        this.operator.get().inspect("nothing-here");
        LockInspection second = this.operator.get().inspect("batch");
        assertThat(keys(0)).as("keys on node 0").isEqualTo(before);
        assertThat(second.nodes().get(0).remainingMillis()).as("never extended").isLessThanOrEqualTo(first.nodes().get(0).remainingMillis());
        assertThat(this.operator.get().inspect("nothing-here").held()).isFalse();
        assertThat(this.operator.get().inspect("nothing-here").nodes()).extracting(LockInspection.Node::state).containsOnly(LockInspection.State.FREE);
        lease.release();
    }

    @Test
    void anInstanceIdMustBeShortPrintableAsciiWithoutSpacesAndDefaultsToHostAndPid() {
        assertThatThrownBy(() -> Redlock.builder().nodes(redis.uris()).instanceId("orders service").build())
                .isInstanceOfSatisfying(RedlockArgumentException.class, (ex) -> assertThat(ex.getArgument()).isEqualTo("instanceId"))
                .hasMessageContaining("printable ASCII").hasMessageContaining("'orders service'");
        assertThatThrownBy(() -> Redlock.builder().nodes(redis.uris()).instanceId("x".repeat(65)).build())
                .hasMessageContaining("1 to 64").hasMessageContaining("65 characters");
        assertThatThrownBy(() -> Redlock.builder().nodes(redis.uris()).instanceId("").build()).hasMessageContaining("instanceId");
        RedlockLease lease = this.operator.get().acquire("defaults", Duration.ofSeconds(30), Duration.ZERO);
        assertThat(lease.token()).endsWith(":" + lease.token().substring(lease.token().length() - 22))
                .contains(":" + ProcessHandle.current().pid() + ":");
        assertThat(this.operator.get().inspect("defaults").holder()).endsWith(":" + ProcessHandle.current().pid());
        lease.release();
    }

    /** How many keys the node holds ({@code keys=n} of its keyspace section). */
    private String keys(int node) {
        return this.nodes.get().info(node, "keyspace").replaceAll("(?s).*(keys=\\d+).*", "$1");
    }

    private void awaitFree(String key) {
        TestSupport.awaitTrue(Duration.ofSeconds(5), () -> {
            LockInspection inspection = this.operator.get().inspect(key);
            return !inspection.held() && inspection.nodes().stream().allMatch((node) -> node.state() == LockInspection.State.FREE);
        });
    }

}
