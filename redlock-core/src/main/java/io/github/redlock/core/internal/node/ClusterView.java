package io.github.redlock.core.internal.node;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

/**
 * A cluster's view as {@code CLUSTER NODES} gives it, parsed: the masters that serve slots in slot order, a signature
 * that changes with any master or slot (two views are the same exactly when their signatures are), and which slots no
 * master serves (null when every slot is served). A pure value: {@link ClusterShards} connects to what it names.
 */
record ClusterView(List<Master> masters, String signature, @Nullable String uncovered) {

    /** A master of the view, with the slots it serves, sorted. */
    record Master(String host, int port, List<Integer> slots) {

        String address() {
            return this.host + ":" + this.port;
        }

        /** {@code host:port slots <ranges>}, as the node's status names it. */
        String described() {
            return address() + " slots " + ranges(this.slots);
        }

    }

    /**
     * Reads {@code CLUSTER NODES}: the masters that serve slots, sorted by their first slot. A master listed without an
     * address (a cluster of one, asked of itself) is the server that answered, {@code source}.
     */
    static ClusterView parse(String clusterNodes, RedisURI source) {
        Partitions partitions = ClusterPartitionParser.parse(clusterNodes);
        List<Master> masters = new ArrayList<>();
        for (RedisClusterNode node : partitions) {
            if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
                continue;
            }
            RedisURI address = node.getUri();
            String host = (address != null) ? address.getHost() : source.getHost();
            int port = (address != null) ? address.getPort() : source.getPort();
            masters.add(new Master(host, port, node.getSlots().stream().sorted().toList()));
        }
        masters.sort((a, b) -> Integer.compare(a.slots().get(0), b.slots().get(0)));
        StringJoiner signature = new StringJoiner(" ");
        int served = 0;
        for (Master master : masters) {
            signature.add(master.address() + "=" + ranges(master.slots()));
            served += master.slots().size();
        }
        String uncovered = (served < SlotHash.SLOT_COUNT) ? (SlotHash.SLOT_COUNT - served) + " of the cluster's "
                + SlotHash.SLOT_COUNT + " hash slots have no master in its view" : null;
        return new ClusterView(List.copyOf(masters), signature.toString(), uncovered);
    }

    /** Sorted slots as ranges: {@code 0-2,5,7-8}. */
    static String ranges(List<Integer> slots) {
        StringJoiner ranges = new StringJoiner(",");
        int start = slots.get(0);
        int previous = start;
        for (int i = 1; i <= slots.size(); i++) {
            int slot = (i < slots.size()) ? slots.get(i) : -2;
            if (slot != previous + 1) {
                ranges.add((start == previous) ? Integer.toString(start) : start + "-" + previous);
                start = slot;
            }
            previous = slot;
        }
        return ranges.toString();
    }

}
