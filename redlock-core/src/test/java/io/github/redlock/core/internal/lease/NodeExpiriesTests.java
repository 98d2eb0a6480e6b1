package io.github.redlock.core.internal.lease;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link NodeExpiries}: the per-node lower bounds of when each node drops a lease's key, the lease's validity
 * as the quorum-th latest of them, and the invariant that no update lowers a bound or revives a node that lost the key,
 * whatever the order of the replies and across a wrap of {@code nanoTime}.
 */
class NodeExpiriesTests {

    private static final long ORIGIN = 1_000;

    @Test
    void nothingIsValidBeforeAnyReply() {
        NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
        assertThat(expiries.validUntil(1)).isEqualTo(NodeExpiries.UNKNOWN);
        assertThat(expiries.validUntil(2)).isEqualTo(NodeExpiries.UNKNOWN);
    }

    @Test
    void validityIsTheQuorumThLatestTime() {
        NodeExpiries expiries = new NodeExpiries(5, ORIGIN);
        expiries.raise(0, 5_000);
        expiries.raise(1, 3_000);
        expiries.raise(2, 9_000);
        expiries.raise(3, 7_000);
        expiries.raise(4, 2_000);
        assertThat(expiries.validUntil(1)).isEqualTo(9_000);
        assertThat(expiries.validUntil(2)).isEqualTo(7_000);
        assertThat(expiries.validUntil(3)).isEqualTo(5_000);
        assertThat(expiries.validUntil(4)).isEqualTo(3_000);
        assertThat(expiries.validUntil(5)).isEqualTo(2_000);
    }

    @Test
    void fewerNodesThanAQuorumHoldingTheKeyIsNoValidity() {
        NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
        expiries.raise(0, 5_000);
        assertThat(expiries.validUntil(2)).isEqualTo(NodeExpiries.UNKNOWN);
    }

    @Test
    void nodesWithEqualTimesEachCountTowardTheQuorum() {
        NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
        expiries.raise(0, 4_000);
        expiries.raise(2, 4_000);
        assertThat(expiries.validUntil(2)).isEqualTo(4_000);
    }

    @Test
    void raisingNeverLowersWhatIsKnown() {
        NodeExpiries expiries = new NodeExpiries(1, ORIGIN);
        expiries.raise(0, 8_000);
        expiries.raise(0, 6_000);
        assertThat(expiries.validUntil(1)).isEqualTo(8_000);
        expiries.raise(0, 8_500);
        assertThat(expiries.validUntil(1)).isEqualTo(8_500);
    }

    @Test
    void aDroppedNodeIsGoneUntilARepair() {
        NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
        expiries.raise(0, 5_000);
        expiries.raise(1, 6_000);
        expiries.raise(2, 7_000);
        expiries.drop(2);
        expiries.raise(2, 99_000); // a late reply of an earlier extension
        assertThat(expiries.validUntil(2)).isEqualTo(5_000);
        assertThat(expiries.validUntil(1)).isEqualTo(6_000);
        assertThat(expiries.validUntil(3)).isEqualTo(NodeExpiries.UNKNOWN);
    }

    @Test
    void aDroppedNodeComesBackOnlyThroughARepairWhichALaterGoneUndoesAgain() {
        NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
        expiries.raise(0, 5_000);
        expiries.raise(1, 6_000);
        expiries.drop(2);
        expiries.raise(2, 99_000); // a late reply of an extension: never revives the node
        assertThat(expiries.validUntil(3)).isEqualTo(NodeExpiries.UNKNOWN);
        expiries.restore(2, 7_000); // the repair's reply
        assertThat(expiries.validUntil(3)).isEqualTo(5_000);
        expiries.restore(2, 6_500); // never lowers what is known
        expiries.raise(2, 8_000); // a later extension's reply
        assertThat(expiries.validUntil(1)).isEqualTo(8_000);
        expiries.drop(2); // an older extension's "gone", recorded after the repair: the node counts no more (safe)
        assertThat(expiries.validUntil(3)).isEqualTo(NodeExpiries.UNKNOWN);
    }

    @Test
    void repliesAppliedInAnyOrderGiveTheSameValidity() {
        // Two overlapping extensions' replies and one "key not found", in every order.
        List<Runnable> updates = new ArrayList<>();
        List<NodeExpiries> results = new ArrayList<>();
        for (int[] order : permutations(new int[] { 0, 1, 2, 3, 4 })) {
            NodeExpiries expiries = new NodeExpiries(3, ORIGIN);
            updates.clear();
            updates.add(() -> expiries.raise(0, 4_000));
            updates.add(() -> expiries.raise(0, 6_000));
            updates.add(() -> expiries.raise(1, 5_000));
            updates.add(() -> expiries.drop(2));
            updates.add(() -> expiries.raise(2, 8_000));
            for (int index : order) {
                updates.get(index).run();
            }
            results.add(expiries);
        }
        assertThat(results).hasSize(120).allSatisfy((expiries) -> {
            assertThat(expiries.validUntil(1)).isEqualTo(6_000);
            assertThat(expiries.validUntil(2)).isEqualTo(5_000);
            assertThat(expiries.validUntil(3)).isEqualTo(NodeExpiries.UNKNOWN);
        });
    }

    @Test
    void timesAreComparedFromTheOriginAcrossAWrapOfNanoTime() {
        long origin = Long.MAX_VALUE - 1_000;
        long beforeWrap = Long.MAX_VALUE - 10;
        long afterWrap = Long.MIN_VALUE + 5_000; // 5_010 ns after beforeWrap, numerically far below it
        NodeExpiries expiries = new NodeExpiries(3, origin);
        expiries.raise(0, beforeWrap);
        expiries.raise(1, afterWrap);
        assertThat(expiries.validUntil(1)).isEqualTo(afterWrap);
        assertThat(expiries.validUntil(2)).isEqualTo(beforeWrap);
        expiries.raise(1, beforeWrap); // lower, though numerically greater
        assertThat(expiries.validUntil(1)).isEqualTo(afterWrap);
    }

    private static List<int[]> permutations(int[] values) {
        List<int[]> all = new ArrayList<>();
        permute(values, 0, all);
        return all;
    }

    private static void permute(int[] values, int from, List<int[]> all) {
        if (from == values.length) {
            all.add(values.clone());
            return;
        }
        for (int i = from; i < values.length; i++) {
            swap(values, from, i);
            permute(values, from + 1, all);
            swap(values, from, i);
        }
    }

    private static void swap(int[] values, int i, int j) {
        int value = values[i];
        values[i] = values[j];
        values[j] = value;
    }

}
