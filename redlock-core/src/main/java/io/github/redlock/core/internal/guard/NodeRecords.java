package io.github.redlock.core.internal.guard;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What the clients of one key prefix recorded of one node on the other nodes (see {@code node-record.lua}): which
 * server processes ({@code run_id}) they saw on it, how long ago, and each client's {@code maxTtl} and quarantine.
 * A record matters for two of its own quarantines and a refresh period, whoever reads it: a client with a short
 * {@code maxTtl} still sees, and waits for, the restart that a client with a long one may hold a lease across.
 *
 * @param entries the records that still matter, of every client that answered
 */
public record NodeRecords(List<Entry> entries) {

    /**
     * Reads the replies of {@code node-records.lua} (flat lists of field, age) of the nodes that answered. A field
     * without a max-ttl (written by an older version of the library) counts with the reading client's own.
     */
    static NodeRecords parse(List<?> replies, long ownMaxTtlMillis, long ownQuarantineMillis) {
        List<Entry> entries = new ArrayList<>();
        for (Object reply : replies) {
            if (reply instanceof List<?> fields) {
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    Entry entry = Entry.parse(text(fields.get(i)), Long.parseLong(text(fields.get(i + 1))), ownMaxTtlMillis,
                            ownQuarantineMillis);
                    if (entry.ageMillis() <= keepMillis(entry.quarantineMillis())) {
                        entries.add(entry);
                    }
                }
            }
        }
        return new NodeRecords(List.copyOf(entries));
    }

    /** How long a record of a client whose quarantine lasts {@code quarantineMillis} matters, as the script computes it. */
    static long keepMillis(long quarantineMillis) {
        return 2 * quarantineMillis + refreshMillis(quarantineMillis);
    }

    /** How often a client whose quarantine lasts {@code quarantineMillis} writes its records again. */
    static long refreshMillis(long quarantineMillis) {
        return Math.max(1, quarantineMillis / 4);
    }

    /**
     * The newest record of another server process than {@code runId}, which shows that the node restarted while in use,
     * or null: the process that ran on the node last before {@code runId}, as far as the records tell. Of two records
     * written equally long ago, the first.
     */
    @Nullable Entry newestOtherProcess(String runId) {
        Entry newest = null;
        for (Entry entry : this.entries) {
            if (!entry.runId().equals(runId) && (newest == null || entry.ageMillis() < newest.ageMillis())) {
                newest = entry;
            }
        }
        return newest;
    }

    /** The record of the client with the longest quarantine, or null when there is none. */
    @Nullable Entry longest() {
        Entry longest = null;
        for (Entry entry : this.entries) {
            if (longest == null || entry.quarantineMillis() > longest.quarantineMillis()) {
                longest = entry;
            }
        }
        return longest;
    }

    private static String text(Object value) {
        return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(value);
    }

    /**
     * One client's record of the node.
     * @param runId the server process it saw
     * @param maxTtlMillis that client's {@code maxTtl}
     * @param quarantineMillis how long that client's quarantine lasts: its {@code maxTtl}, drift and a second
     * @param ageMillis how long ago it last wrote the record, by the recording node's clock
     */
    record Entry(String runId, long maxTtlMillis, long quarantineMillis, long ageMillis) {

        static Entry parse(String field, long ageMillis, long ownMaxTtlMillis, long ownQuarantineMillis) {
            String[] parts = field.split(":");
            if (parts.length == 3) {
                return new Entry(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]), ageMillis);
            }
            return new Entry(field, ownMaxTtlMillis, ownQuarantineMillis, ageMillis);
        }

    }

}
