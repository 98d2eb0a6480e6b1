package io.github.redlock.test;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterViewTests {

    private static final String REDIS_7 = """
            aaa 127.0.0.1:30001@40001,host-a myself,master - 0 0 1 connected 0-5460
            bbb 127.0.0.1:30002@40002 master - 0 1426238316232 2 connected 5461-10922 [10923->-ccc]
            ccc 127.0.0.1:30003@40003 master,fail - 1426238316232 1426238316232 3 disconnected 10923-16383
            ddd 127.0.0.1:30004@40004 slave bbb 0 1426238317239 2 connected
            """;

    @Test
    void readsEachNodesAddressRoleAndSlots() {
        ClusterView view = ClusterView.parse(REDIS_7);
        assertThat(view.entries()).extracting(ClusterView.Entry::port).containsExactly(30001, 30002, 30003, 30004);
        ClusterView.Entry replica = view.byId("ddd").orElseThrow();
        assertThat(replica.isMaster()).isFalse();
        assertThat(replica.masterId()).isEqualTo("bbb");
        assertThat(replica.ownsSlots()).isFalse();
        assertThat(view.byPort(30001).orElseThrow().flags()).contains("myself", "master");
    }

    @Test
    void leavesMigratingSlotsOutOfTheSlotsANodeServes() {
        ClusterView.Entry entry = ClusterView.parse(REDIS_7).byId("bbb").orElseThrow();
        assertThat(entry.owns(5461)).isTrue();
        assertThat(entry.owns(10922)).isTrue();
        assertThat(entry.owns(10923)).isFalse();
    }

    @Test
    void ordersSlotOwnersBySlotAndFindsTheOwnerOfOne() {
        ClusterView view = ClusterView.parse(REDIS_7);
        assertThat(view.slotOwners()).extracting(ClusterView.Entry::id).containsExactly("aaa", "bbb", "ccc");
        assertThat(view.ownerOf(12000).orElseThrow().id()).isEqualTo("ccc");
    }

    @Test
    void tellsAFailedOrDisconnectedNodeFromAHealthyOne() {
        ClusterView view = ClusterView.parse(REDIS_7);
        ClusterView.Entry failed = view.byId("ccc").orElseThrow();
        assertThat(failed.isTroubled()).isTrue();
        assertThat(failed.connected()).isFalse();
        assertThat(view.byId("bbb").orElseThrow().isTroubled()).isFalse();
    }

    @Test
    void readsASingleSlotAsARangeOfOne() {
        ClusterView view = ClusterView.parse("eee 127.0.0.1:30005@40005 master - 0 0 5 connected 7 9-10\n");
        ClusterView.Entry entry = view.entries().get(0);
        assertThat(entry.owns(7)).isTrue();
        assertThat(entry.owns(8)).isFalse();
        assertThat(entry.firstSlot()).isEqualTo(7);
    }

}
