package io.github.redlock.test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply: a line per node it knows, e.g.
 * {@code 67ed… 127.0.0.1:30002@40002 myself,master - 0 1426238316232 2 connected 5461-10922}. Views of different
 * nodes disagree while gossip spreads a change; the harness waits until every node's view says what it expects.
 * @param entries the nodes, in the reply's order
 */
record ClusterView(List<Entry> entries) {

    ClusterView {
        entries = List.copyOf(entries);
    }

    /**
     * One node as the viewer sees it.
     * @param id the node's cluster id
     * @param port its client port (the cluster bus listens on that plus 10000)
     * @param flags e.g. {@code myself}, {@code master}, {@code slave}, {@code fail?}, {@code fail}, {@code handshake}
     * @param masterId the id of the master it replicates, or null for a master
     * @param slots the slot ranges it serves, each {@code {first, last}}, in the reply's order
     * @param connected whether the viewer's cluster bus link to it is up
     */
    record Entry(String id, int port, Set<String> flags, @Nullable String masterId, List<int[]> slots, boolean connected) {

        boolean isMaster() {
            return this.flags.contains("master");
        }

        /** Whether the viewer suspects or knows it failed, or does not know it fully yet. */
        boolean isTroubled() {
            return this.flags.contains("fail?") || this.flags.contains("fail") || this.flags.contains("handshake")
                    || this.flags.contains("noaddr");
        }

        boolean ownsSlots() {
            return !this.slots.isEmpty();
        }

        boolean owns(int slot) {
            return this.slots.stream().anyMatch((range) -> range[0] <= slot && slot <= range[1]);
        }

        int firstSlot() {
            return this.slots.stream().mapToInt((range) -> range[0]).min().orElse(Integer.MAX_VALUE);
        }

    }

    /**
     * Parses a {@code CLUSTER NODES} reply (Redis 6.2 and 7: the address may carry {@code ,hostname}; slots being
     * imported or migrated, in brackets, are left out).
     */
    static ClusterView parse(String reply) {
        List<Entry> entries = new ArrayList<>();
        for (String line : reply.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1].split("[@,]")[0];
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                if (!fields[i].startsWith("[")) {
                    String[] bounds = fields[i].split("-");
                    slots.add(new int[] { Integer.parseInt(bounds[0]), Integer.parseInt(bounds[bounds.length - 1]) });
                }
            }
            String masterId = fields[3].equals("-") ? null : fields[3];
            entries.add(new Entry(fields[0], port, Set.of(fields[2].split(",")), masterId, slots,
                    fields[7].equals("connected")));
        }
        return new ClusterView(entries);
    }

    Optional<Entry> byId(String id) {
        return this.entries.stream().filter((entry) -> entry.id().equals(id)).findFirst();
    }

    Optional<Entry> byPort(int port) {
        return this.entries.stream().filter((entry) -> entry.port() == port).findFirst();
    }

    /** Returns the entries that serve slots, in the order of their first slot. */
    List<Entry> slotOwners() {
        return this.entries.stream().filter(Entry::ownsSlots).sorted(Comparator.comparingInt(Entry::firstSlot)).toList();
    }

    Optional<Entry> ownerOf(int slot) {
        return this.entries.stream().filter((entry) -> entry.owns(slot)).findFirst();
    }

}
