package io.github.redlock.core.internal.node;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parse of {@code CLUSTER NODES} into the masters a cluster node votes through: only masters that serve slots,
 * sorted by their first slot, with a signature that names each one's slot ranges (it changes with any move of a slot or
 * a failover), and the slots no master serves.
 */
class ClusterViewTests {

    private static final RedisURI SOURCE = RedisURI.create("redis://10.0.0.9:7000");

    @Test
    void mastersWithSlotsInSlotOrderWithTheirRangesInTheSignature() {
        String nodes = """
                07c3 10.0.0.2:7001@17001 master - 0 1700000000000 2 connected 5461-10922
                67ed 10.0.0.1:7000@17000 myself,master - 0 1700000000000 1 connected 0-5460
                292f 10.0.0.3:7002@17002 master - 0 1700000000000 3 connected 10923-16383
                6ec2 10.0.0.4:7003@17003 slave 67ed 0 1700000000000 1 connected
                824f 10.0.0.5:7004@17004 master - 0 1700000000000 4 connected
                """;
        ClusterView parsed = ClusterView.parse(nodes, SOURCE);
        assertThat(parsed.masters()).extracting(ClusterView.Master::address)
                .as("the replica and the master without slots are not counted").containsExactly("10.0.0.1:7000", "10.0.0.2:7001", "10.0.0.3:7002");
        assertThat(parsed.signature()).isEqualTo("10.0.0.1:7000=0-5460 10.0.0.2:7001=5461-10922 10.0.0.3:7002=10923-16383");
        assertThat(parsed.uncovered()).isNull();
    }

    @Test
    void slotsServedByNoMasterAreCountedAndSplitRangesNamedEach() {
        String nodes = """
                67ed 10.0.0.1:7000@17000 myself,master - 0 1700000000000 1 connected 0-100 200-5460
                07c3 10.0.0.2:7001@17001 master - 0 1700000000000 2 connected 5461-10922 101
                292f 10.0.0.3:7002@17002 master,fail - 1700000000000 1700000000000 3 disconnected
                """;
        ClusterView parsed = ClusterView.parse(nodes, SOURCE);
        assertThat(parsed.signature()).isEqualTo("10.0.0.1:7000=0-100,200-5460 10.0.0.2:7001=101,5461-10922");
        assertThat(parsed.uncovered()).isEqualTo("5559 of the cluster's 16384 hash slots have no master in its view");
    }

    @Test
    void aFailoverChangesTheSignature() {
        String before = "67ed 10.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-16383\n";
        String after = "67ed 10.0.0.1:7000@17000 myself,slave 6ec2 0 0 2 connected\n"
                + "6ec2 10.0.0.4:7003@17003 master - 0 0 2 connected 0-16383\n";
        assertThat(ClusterView.parse(before, SOURCE).signature()).isEqualTo("10.0.0.1:7000=0-16383");
        assertThat(ClusterView.parse(after, SOURCE).signature()).isEqualTo("10.0.0.4:7003=0-16383");
    }

    @Test
    void rangesJoinConsecutiveSlots() {
        assertThat(ClusterView.ranges(java.util.List.of(0, 1, 2, 5, 7, 8))).isEqualTo("0-2,5,7-8");
        assertThat(ClusterView.ranges(java.util.List.of(42))).isEqualTo("42");
    }

}
