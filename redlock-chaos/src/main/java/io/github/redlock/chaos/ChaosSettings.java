package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import io.github.redlock.core.RestartQuarantine;

/**
 * What every client process of a run is told: the nodes, the storage, and how to lock. Written by
 * {@link ChaosRun} as {@code client.properties} in the run's directory, read by each {@link ChaosClient}.
 * @param nodes the lock's node URIs, as every client process reaches them but those in {@code clientNodes}
 * @param clientNodes the node URIs of some client processes, by index, in the order of {@code nodes} (the same nodes,
 * some through the run's proxies: {@link ClientPaths}); empty when every process reaches the nodes directly. Stored as
 * {@code nodes.<index>}: a file without any is read as before
 * @param storage where the storage is ({@link Storage#open}): a {@code jdbc:postgresql:} URL or a {@code redis://} URI
 * @param threads threads per client process
 * @param keys keys per kind of lock (few, so that clients contend)
 * @param minTtlMillis the shortest ttl drawn
 * @param maxTtlMillis the longest {@code maxTtl} of the fleet: the longest ttl any client draws, and the length a
 * restart quarantine waits for
 * @param clientMaxTtlMillis each client process's {@code maxTtl}, by index: it runs its Redlocks with it and draws
 * its ttls up to it (a fleet: some processes with a short one)
 * @param waitMillis how long an acquisition waits for a held lock
 * @param kinds the kinds of lock the threads draw from
 * @param longHolds the share of holds that last half to nine tenths of the ttl (the others last a few ms)
 * @param fencing whether the fenced Redlock draws fencing tokens (off: its writes carry none)
 * @param quarantine the restart quarantine of every Redlock
 * @param seed the run's seed, from which each thread draws its own
 * @param directory the run's directory, for histories and the stop file
 * @param leader whether every client process also runs a candidate of the leader election ({@link LeaderCandidate}); a
 * file without it is read as {@code false}
 * @param storageFence whether the storage checks the fencing tokens of writes ({@code false}: the control of its fence);
 * a file without it is read as {@code true}
 */
record ChaosSettings(List<String> nodes, Map<Integer, List<String>> clientNodes, String storage, int threads, int keys, long minTtlMillis,
        long maxTtlMillis, List<Long> clientMaxTtlMillis, long waitMillis, List<History.Kind> kinds, double longHolds, boolean fencing,
        RestartQuarantine quarantine, long seed, Path directory, boolean leader, boolean storageFence) {

    /** The prefix of a client process's own node list in {@code client.properties}: {@code nodes.<index>}. */
    private static final String CLIENT_NODES = "nodes.";

    /** The storage connections of all client processes together: {@link #storageConnections()}. */
    static final int STORAGE_CONNECTIONS = 40;

    ChaosSettings {
        clientNodes = Map.copyOf(clientNodes);
    }

    /** Settings with the storage's fence on, as every run but its control has it. */
    ChaosSettings(List<String> nodes, Map<Integer, List<String>> clientNodes, String storage, int threads, int keys, long minTtlMillis,
            long maxTtlMillis, List<Long> clientMaxTtlMillis, long waitMillis, List<History.Kind> kinds, double longHolds, boolean fencing,
            RestartQuarantine quarantine, long seed, Path directory, boolean leader) {
        this(nodes, clientNodes, storage, threads, keys, minTtlMillis, maxTtlMillis, clientMaxTtlMillis, waitMillis, kinds, longHolds,
                fencing, quarantine, seed, directory, leader, true);
    }

    /** Reads the settings that {@link #store} wrote. */
    static ChaosSettings load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<Integer, List<String>> clientNodes = new TreeMap<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith(CLIENT_NODES)) {
                clientNodes.put(Integer.valueOf(name.substring(CLIENT_NODES.length())), List.of(properties.getProperty(name).split(" ")));
            }
        }
        return new ChaosSettings(List.of(properties.getProperty("nodes").split(" ")), clientNodes, properties.getProperty("storage"),
                Integer.parseInt(properties.getProperty("threads")), Integer.parseInt(properties.getProperty("keys")),
                Long.parseLong(properties.getProperty("minTtlMillis")), Long.parseLong(properties.getProperty("maxTtlMillis")),
                java.util.Arrays.stream(properties.getProperty("clientMaxTtlMillis").split(",")).map(Long::valueOf).toList(),
                Long.parseLong(properties.getProperty("waitMillis")),
                java.util.Arrays.stream(properties.getProperty("kinds").split(",")).map(History.Kind::valueOf).toList(),
                Double.parseDouble(properties.getProperty("longHolds")), Boolean.parseBoolean(properties.getProperty("fencing")),
                RestartQuarantine.valueOf(properties.getProperty("quarantine")), Long.parseLong(properties.getProperty("seed")),
                Path.of(properties.getProperty("directory")), Boolean.parseBoolean(properties.getProperty("leader", "false")),
                Boolean.parseBoolean(properties.getProperty("storageFence", "true")));
    }

    /** Writes the settings for the client processes, which {@link #load} them. */
    void store(Path file) throws IOException {
        Properties properties = new Properties();
        properties.setProperty("nodes", String.join(" ", this.nodes)); // a Sentinel node's URI has commas
        this.clientNodes.forEach((client, uris) -> properties.setProperty(CLIENT_NODES + client, String.join(" ", uris)));
        properties.setProperty("storage", this.storage);
        properties.setProperty("threads", Integer.toString(this.threads));
        properties.setProperty("keys", Integer.toString(this.keys));
        properties.setProperty("minTtlMillis", Long.toString(this.minTtlMillis));
        properties.setProperty("maxTtlMillis", Long.toString(this.maxTtlMillis));
        properties.setProperty("clientMaxTtlMillis", joined(this.clientMaxTtlMillis));
        properties.setProperty("waitMillis", Long.toString(this.waitMillis));
        properties.setProperty("kinds", String.join(",", this.kinds.stream().map(History.Kind::name).toList()));
        properties.setProperty("longHolds", Double.toString(this.longHolds));
        properties.setProperty("fencing", Boolean.toString(this.fencing));
        properties.setProperty("quarantine", this.quarantine.name());
        properties.setProperty("seed", Long.toString(this.seed));
        properties.setProperty("directory", this.directory.toString());
        properties.setProperty("leader", Boolean.toString(this.leader));
        properties.setProperty("storageFence", Boolean.toString(this.storageFence));
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "chaos client settings");
        }
    }

    /** The node URIs the given client process locks on: its own list when it has one, else {@link #nodes()}. */
    List<String> nodes(int client) {
        return this.clientNodes.getOrDefault(client, this.nodes);
    }

    /**
     * How many connections to the storage each client process keeps: one per thread, within the {@value #STORAGE_CONNECTIONS}
     * that the processes share (the test's PostgreSQL allows 50).
     */
    int storageConnections() {
        return Math.max(1, Math.min(this.threads, STORAGE_CONNECTIONS / this.clientMaxTtlMillis.size()));
    }

    /** The {@code maxTtl} of the given client process. */
    long maxTtlMillis(int client) {
        return this.clientMaxTtlMillis.get(client);
    }

    /** Numbers as {@code run.properties} and {@code client.properties} list them: comma-separated. */
    static String joined(List<Long> values) {
        return String.join(",", values.stream().map(Object::toString).toList());
    }

}
