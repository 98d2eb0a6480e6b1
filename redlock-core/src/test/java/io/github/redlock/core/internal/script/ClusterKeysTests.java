package io.github.redlock.core.internal.script;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests where a cluster node stores a lock's keys: companion keys in the slot of the lock's key, by a tag of the whole
 * key or the key's own tag; the lock's own fencing counter in place of the node-wide one; keys that cannot be placed.
 */
class ClusterKeysTests {

    @Test
    void theExclusiveKeyIsNeverChanged() {
        byte[] key = bytes("redlock:order:42");
        assertThat(ClusterKeys.place(key)).isSameAs(key);
    }

    @Test
    void aCompanionKeyIsTaggedIntoItsLockKeysSlot() {
        for (LockType type : List.of(LockType.READ, LockType.WRITE)) {
            LockType.Keys keys = type.keys("redlock:report", null);
            for (byte[] part : ClusterKeys.place(keys.acquire())) {
                assertThat(text(part)).startsWith("{redlock:report}\u00FF");
                assertThat(SlotHash.getSlot(part)).isEqualTo(SlotHash.getSlot(bytes("redlock:report")));
            }
        }
    }

    @Test
    void aKeyWithItsOwnTagKeepsItsCompanionsUntagged() {
        LockType.Keys keys = LockType.WRITE.keys("redlock:{order}:7}", null);
        byte[][] placed = ClusterKeys.place(keys.acquire());
        assertThat(placed).isSameAs(keys.acquire());
        for (byte[] part : placed) {
            assertThat(SlotHash.getSlot(part)).isEqualTo(SlotHash.getSlot(bytes("order")));
        }
    }

    @Test
    void theNodeWideCounterBesideALocksKeysBecomesTheLocksOwnInItsSlot() {
        byte[] counter = bytes("redlock:\u00FFfencing-counter");
        byte[][] exclusive = ClusterKeys.place(LockType.EXCLUSIVE.keys("redlock:job", counter).acquire());
        assertThat(text(exclusive[1])).isEqualTo("{redlock:job}\u00FFfence");
        byte[][] write = ClusterKeys.place(LockType.WRITE.keys("redlock:job", counter).fence());
        assertThat(text(write[1])).isEqualTo("{redlock:job}\u00FFfence");
        // Read alone (the repair's read), the node-wide counter stays itself, placed by its prefix.
        assertThat(text(ClusterKeys.place(new byte[][] { counter })[0])).isEqualTo("{redlock:}\u00FFfencing-counter");
    }

    @Test
    void aKeyWithACloseBraceAndNoTagCannotBePlaced() {
        assertThat(ClusterKeys.unplaceable("redlock:a}b")).contains("'redlock:a}b' holds '}' but no hash tag");
        assertThat(ClusterKeys.unplaceable("redlock:{}x}")).isNotNull(); // an empty tag is no tag
        assertThat(ClusterKeys.unplaceable("redlock:{order}:7}")).isNull();
        assertThat(ClusterKeys.unplaceable("redlock:{open")).isNull(); // {K} ends the tag where K ends
        assertThat(SlotHash.getSlot(ClusterKeys.place(bytes("redlock:{open\u00FFwaiting")))).isEqualTo(SlotHash.getSlot(bytes("redlock:{open")));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

}
