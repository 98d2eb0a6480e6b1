package io.github.redlock.core.internal.script;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * A lock on several keys on a Redis Cluster node whose keys fall in several hash slots: a script runs on one slot's
 * keys only, so each script of the lock runs once per slot group (the keys of one slot, with their companion keys and
 * arguments), and the node answers as one: it grants only when every group granted (the groups that granted while
 * another refused are released at once, {@link #undo}), holds only while every group holds, and released only when
 * every group released. Keys keep their order within a group, so every group still takes its keys in the order every
 * client takes them.
 */
public final class SlotGroups {

    private SlotGroups() {
    }

    /**
     * One group's call: its keys (not yet placed, see {@link ClusterKeys}) and arguments.
     * @param keys the group's keys, in the script's layout
     * @param args the group's arguments
     */
    public record Part(byte[][] keys, byte[][] args) {
    }

    /**
     * Splits a call of a script on several keys by the slot of each lock key, or returns null when the script takes
     * no such keys or they are all in one slot.
     * @param script the script
     * @param keys its keys, in its layout (see each script), not yet placed
     * @param args its arguments
     * @return one part per slot group, in the order of each group's first key; or null
     */
    public static @Nullable List<Part> split(LuaScript script, byte[][] keys, byte[][] args) {
        int locks = lockKeyCount(script, keys.length, args.length);
        if (locks < 2) {
            return null;
        }
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < locks; i++) {
            groups.computeIfAbsent(SlotHash.getSlot(keys[i]), (slot) -> new ArrayList<>()).add(i);
        }
        if (groups.size() == 1) {
            return null;
        }
        List<Part> parts = new ArrayList<>(groups.size());
        for (List<Integer> group : groups.values()) {
            parts.add(part(script, keys, args, group, locks));
        }
        return parts;
    }

    /** How many of the keys are lock keys that may each be in another slot; 0 for a script of one lock key. */
    private static int lockKeyCount(LuaScript script, int keyCount, int argCount) {
        if (script == LuaScript.ACQUIRE_MULTI || script == LuaScript.EXTEND_MULTI) {
            return keyCount;
        }
        if (script == LuaScript.RELEASE_MULTI) {
            return (argCount > 1) ? argCount - 1 : keyCount; // a release that publishes: a channel, and who waits, for each
        }
        if (script == LuaScript.ACQUIRE_MULTI_FENCED) {
            return keyCount - 1; // then the fencing counter
        }
        if (script == LuaScript.CLEANUP) {
            return keyCount / 2; // then who waits for each
        }
        return 0;
    }

    private static Part part(LuaScript script, byte[][] keys, byte[][] args, List<Integer> group, int locks) {
        List<byte[]> partKeys = new ArrayList<>();
        group.forEach((i) -> partKeys.add(keys[i]));
        List<byte[]> partArgs = new ArrayList<>();
        if (script == LuaScript.ACQUIRE_MULTI_FENCED) {
            partKeys.add(keys[locks]); // the counter: on a cluster node, the group's first lock's own (ClusterKeys)
            partArgs.addAll(Arrays.asList(args));
        }
        else if (script == LuaScript.CLEANUP) {
            group.forEach((i) -> partKeys.add(keys[locks + i]));
            partArgs.addAll(Arrays.asList(args).subList(0, Math.min(3, args.length))); // token, client, for how long
            group.stream().filter((i) -> 3 + i < args.length).forEach((i) -> partArgs.add(args[3 + i])); // channels
        }
        else if (script == LuaScript.RELEASE_MULTI) {
            if (keys.length > locks) {
                group.forEach((i) -> partKeys.add(keys[locks + i])); // who waits for each, beside a channel
            }
            partArgs.add(args[0]); // the token, then the channel of each key
            group.stream().filter((i) -> 1 + i < args.length).forEach((i) -> partArgs.add(args[1 + i]));
        }
        else {
            partArgs.addAll(Arrays.asList(args)); // token and ttl
        }
        return new Part(partKeys.toArray(byte[][]::new), partArgs.toArray(byte[][]::new));
    }

    /**
     * The node's reply from its groups' replies, as the script would answer for all the keys on one server: an
     * acquisition granted (1, or the largest fencing counter) only when every group granted, else the longest refusal;
     * an extension's shortest time to live while every group holds, else 0; a release's or clean-up's 1 only when
     * every group answered 1.
     */
    public static long combine(LuaScript script, long[] replies) {
        boolean all = Arrays.stream(replies).allMatch((reply) -> reply > 0);
        if (script == LuaScript.ACQUIRE_MULTI || script == LuaScript.ACQUIRE_MULTI_FENCED) {
            return all ? Arrays.stream(replies).max().orElse(0) : Math.min(0, Arrays.stream(replies).min().orElse(0));
        }
        if (script == LuaScript.EXTEND_MULTI) {
            return all ? Arrays.stream(replies).min().orElse(0) : 0;
        }
        return Arrays.stream(replies).allMatch((reply) -> reply == 1) ? 1 : 0;
    }

    /**
     * What releases a group that granted an acquisition that another group of the node refused, or null when the script
     * is no acquisition: the release of the group's lock keys that still hold the token.
     */
    public static @Nullable Part undo(LuaScript script, Part granted) {
        if (script == LuaScript.ACQUIRE_MULTI) {
            return new Part(granted.keys(), new byte[][] { granted.args()[0] });
        }
        if (script == LuaScript.ACQUIRE_MULTI_FENCED) {
            return new Part(Arrays.copyOf(granted.keys(), granted.keys().length - 1), new byte[][] { granted.args()[0] });
        }
        return null;
    }

}
