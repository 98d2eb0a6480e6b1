package io.github.redlock.core.internal.script;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests how a multi-key script is split by slot on a cluster node, and how the groups' replies make the node's.
 */
class SlotGroupsTests {

    /** Two keys of one slot (a shared tag) and one of another. */
    private static final byte[][] LOCKS = { bytes("{a}1"), bytes("{a}2"), bytes("{b}1") };

    @Test
    void keysOfOneSlotAreNotSplit() {
        assertThat(SlotGroups.split(LuaScript.ACQUIRE_MULTI, new byte[][] { bytes("{a}1"), bytes("{a}2") }, new byte[][] { bytes("t") })).isNull();
        assertThat(SlotGroups.split(LuaScript.RELEASE, new byte[][] { bytes("x"), bytes("y") }, new byte[][] { bytes("t") })).isNull();
    }

    @Test
    void anAcquisitionIsSplitBySlotWithItsArgumentsAndTheFencingCounterInEachGroup() {
        byte[] counter = bytes("redlock:\u00FFfencing-counter");
        byte[][] keys = { LOCKS[0], LOCKS[1], LOCKS[2], counter };
        List<SlotGroups.Part> parts = SlotGroups.split(LuaScript.ACQUIRE_MULTI_FENCED, keys, new byte[][] { bytes("token"), bytes("5000") });
        assertThat(parts).hasSize(2);
        assertThat(texts(parts.get(0).keys())).containsExactly(text(LOCKS[0]), text(LOCKS[1]), text(counter));
        assertThat(texts(parts.get(1).keys())).containsExactly(text(LOCKS[2]), text(counter));
        for (SlotGroups.Part part : parts) {
            assertThat(text(part.args()[0])).isEqualTo("token");
            for (byte[] key : ClusterKeys.place(part.keys())) {
                assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot(part.keys()[0]));
            }
        }
    }

    @Test
    void aReleaseAndACleanUpTakeTheChannelsAndWaitersOfTheirGroupsKeys() {
        byte[][] channels = { bytes("c1"), bytes("c2"), bytes("c3") };
        byte[][] cleanupKeys = { LOCKS[0], LOCKS[1], LOCKS[2], bytes("{a}1\u00FFwaiting"), bytes("{a}2\u00FFwaiting"), bytes("{b}1\u00FFwaiting") };
        List<SlotGroups.Part> releases = SlotGroups.split(LuaScript.RELEASE_MULTI, cleanupKeys,
                new byte[][] { bytes("t"), channels[0], channels[1], channels[2] });
        assertThat(texts(releases.get(0).keys())).containsExactly(text(LOCKS[0]), text(LOCKS[1]), text(cleanupKeys[3]), text(cleanupKeys[4]));
        assertThat(texts(releases.get(0).args())).containsExactly("t", text(channels[0]), text(channels[1]));
        assertThat(texts(releases.get(1).keys())).containsExactly(text(LOCKS[2]), text(cleanupKeys[5]));
        assertThat(texts(releases.get(1).args())).containsExactly("t", text(channels[2]));
        List<SlotGroups.Part> quiet = SlotGroups.split(LuaScript.RELEASE_MULTI, LOCKS, new byte[][] { bytes("t") });
        assertThat(texts(quiet.get(0).keys())).containsExactly(text(LOCKS[0]), text(LOCKS[1]));
        List<SlotGroups.Part> cleanups = SlotGroups.split(LuaScript.CLEANUP, cleanupKeys,
                new byte[][] { bytes("t"), bytes("client"), bytes("100"), channels[0], channels[1], channels[2] });
        assertThat(texts(cleanups.get(1).keys())).containsExactly(text(LOCKS[2]), text(cleanupKeys[5]));
        assertThat(texts(cleanups.get(1).args())).containsExactly("t", "client", "100", text(channels[2]));
        List<SlotGroups.Part> retry = SlotGroups.split(LuaScript.CLEANUP, cleanupKeys, new byte[][] { bytes("t"), bytes("client"), bytes("100") });
        assertThat(retry.get(0).args().length).isEqualTo(3);
    }

    @Test
    void theNodeGrantsOnlyWhenEveryGroupGrantsAndHoldsOnlyWhileEveryGroupHolds() {
        assertThat(SlotGroups.combine(LuaScript.ACQUIRE_MULTI, new long[] { 1, 1 })).isEqualTo(1);
        assertThat(SlotGroups.combine(LuaScript.ACQUIRE_MULTI, new long[] { 1, -502 })).isEqualTo(-502);
        assertThat(SlotGroups.combine(LuaScript.ACQUIRE_MULTI, new long[] { -12, -502 })).isEqualTo(-502); // the longest holder
        assertThat(SlotGroups.combine(LuaScript.ACQUIRE_MULTI_FENCED, new long[] { 17, 40 })).isEqualTo(40);
        assertThat(SlotGroups.combine(LuaScript.EXTEND_MULTI, new long[] { 900, 300 })).isEqualTo(300);
        assertThat(SlotGroups.combine(LuaScript.EXTEND_MULTI, new long[] { 900, 0 })).isZero();
        assertThat(SlotGroups.combine(LuaScript.RELEASE_MULTI, new long[] { 1, 0 })).isZero();
        assertThat(SlotGroups.combine(LuaScript.CLEANUP, new long[] { 1, 1 })).isEqualTo(1);
    }

    @Test
    void aGroupThatGrantedWhileAnotherRefusedIsReleasedByItsLockKeys() {
        SlotGroups.Part granted = new SlotGroups.Part(new byte[][] { LOCKS[0], LOCKS[1], bytes("counter") }, new byte[][] { bytes("t"), bytes("5000") });
        SlotGroups.Part undo = SlotGroups.undo(LuaScript.ACQUIRE_MULTI_FENCED, granted);
        assertThat(texts(undo.keys())).containsExactly(text(LOCKS[0]), text(LOCKS[1]));
        assertThat(texts(undo.args())).containsExactly("t");
        assertThat(SlotGroups.undo(LuaScript.EXTEND_MULTI, granted)).isNull();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> texts(byte[][] keys) {
        return java.util.Arrays.stream(keys).map(SlotGroupsTests::text).toList();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

}
