package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.NetworkHost;
import io.github.redlock.test.ProcessCuts;
import io.github.redlock.test.RedisNode;

/**
 * A chaos run: five real nodes (the last standalone one under {@code libfaketime} when installed; a Sentinel group in
 * place of a standalone node when the run may draw {@link FaultKind#FAILOVER}, and a Redis Cluster in place of another
 * when it may draw {@link FaultKind#CLUSTER_FAILOVER}, after the standalone ones), the storage (a PostgreSQL whose
 * fenced writes {@code JdbcFence} guards: {@link StorageServer}), and several
 * client processes ({@link ChaosClient}; when the run may draw {@link FaultKind#DEPOSED_MASTER}, the Sentinel group is
 * there too, and client {@link ClientPaths#CLIENT} reaches the sentinels and two standalone nodes through proxies of
 * this run, {@link ClientPaths}; when it may draw a partition fault, every standalone node runs in a network namespace of
 * its own that each client reaches over a link of its own, {@link NetworkHost}) that lock contended keys and write to the
 * storage (and, when asked for, run for leader:
 * {@link LeaderCandidate}) while faults are injected ({@link Faults}, which may wait for what the clients count:
 * {@link ClientVotes}) on a seeded schedule; then a quiet tail for the liveness check, and the
 * {@link HistoryChecker} over the merged history. {@code main} runs one from system properties
 * ({@link ChaosOptions#fromSystemProperties}) and exits 1 on a violation.
 */
public final class ChaosRun {

    /** Where Debian's {@code libfaketime} package puts the library. */
    private static final List<Path> FAKETIME = List.of(Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1"), Path.of("/usr/lib/faketime/libfaketimeMT.so.1"));

    private static final long CLIENT_START_TIMEOUT_MILLIS = 60_000;

    private ChaosRun() {
    }

    /**
     * Runs a chaos run from the {@code chaos.*} system properties and prints its report.
     * @param args unused
     * @throws Exception when the run cannot be made (not when it finds a violation: the exit code says that)
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true"); // the timeline is drawn off-screen
        CheckReport report = run(ChaosOptions.fromSystemProperties(60));
        System.out.println(report.text());
        System.exit(report.hasViolations() ? 1 : 0);
    }

    /** Runs one chaos run and checks its history; the report and timeline are written to its directory. */
    static CheckReport run(ChaosOptions options) throws IOException, InterruptedException {
        Path directory = emptyDirectory(options.directory());
        System.out.println("chaos run: seed " + options.seed() + ", " + options.clients() + " clients x " + options.threads()
                + " threads (max-ttl by client " + options.clientMaxTtlMillis() + " ms), " + options.faultSeconds() + " s of faults "
                + options.faults() + ", locks " + options.kinds() + ", quarantine " + options.quarantine() + ", fencing "
                + options.fencing() + (options.sentinelConfirmation() ? "" : ", sentinel confirmation OFF")
                + (options.leader() ? ", a leader election" : "") + (options.leaseRepairs() ? "" : ", lease repairs OFF")
                + (options.storageFence() ? "" : ", the storage's fence OFF")
                + (options.formerRecordReads() ? ", restart records read as before the quorum-intersection rule" : "") + ", in "
                + directory.toAbsolutePath());
        List<RedisNode> nodes = new ArrayList<>();
        CompletableFuture<StorageServer> storageStart = null;
        List<Process> clients = new ArrayList<>();
        SentinelFailover group = null;
        ClusterFailover cluster = null;
        ClientPaths paths = null;
        List<NetworkHost> hosts = null;
        ProcessCuts cuts = null;
        try {
            storageStart = CompletableFuture.supplyAsync(StorageServer::start); // PostgreSQL's start beside the nodes'
            boolean failover = options.faults().contains(FaultKind.FAILOVER) || options.faults().contains(FaultKind.DEPOSED_MASTER);
            boolean clusterFailover = options.faults().contains(FaultKind.CLUSTER_FAILOVER)
                    || options.faults().contains(FaultKind.CLUSTER_PARTITION);
            hosts = partitionHosts(options, 5 - (failover ? 1 : 0) - (clusterFailover ? 1 : 0));
            Path clockFile = startStandalone(5 - (failover ? 1 : 0) - (clusterFailover ? 1 : 0), directory, nodes, hosts);
            List<String> uris = new ArrayList<>(nodes.stream().map(RedisNode::uri).toList());
            if (failover) { // a Sentinel group in place of a standalone node, for the failover faults
                group = SentinelFailover.start();
                uris.add(group.uri());
            }
            if (clusterFailover) { // a Redis Cluster in place of another, for the cluster failover faults
                cluster = ClusterFailover.start(options.lockedKeys());
                uris.add(cluster.uri());
            }
            Map<Integer, List<String>> clientNodes = Map.of();
            if (options.faults().contains(FaultKind.DEPOSED_MASTER)) { // one client's paths that the fault silences
                paths = ClientPaths.start(nodes, uris.size() - (uris.size() / 2 + 1), group.group());
                clientNodes = Map.of(ClientPaths.CLIENT, paths.nodeUris(nodes.stream().map(RedisNode::uri).toList(), group.uri(), uris));
            }
            if (hosts != null) { // every client reaches each standalone node over a link of its own
                clientNodes = linkUris(nodes, uris, options.clients());
            }
            StorageServer storage = started(storageStart);
            Path clientProperties = directory.resolve("client.properties");
            settings(options, uris, clientNodes, storage.uri(), directory).store(clientProperties);
            for (int i = 0; i < options.clients(); i++) {
                clients.add(startClient(clientProperties, i, directory, options.clientSwitches()));
            }
            awaitReady(directory, clients);
            long runStart = System.nanoTime();
            Faults faults = new Faults(nodes, group, cluster, paths, new ClientVotes(directory, clients), clients, clockFile,
                    options.maxTtlMillis());
            if (hosts != null) {
                faults.partitions(hosts, directory);
            }
            cuts = processCuts(options);
            if (cuts != null) {
                faults.processCuts(cuts);
            }
            long faultsEnd = injectFaults(options, faults, runStart);
            Faults.sleep(options.tailMillis());
            Files.writeString(directory.resolve("stop"), "stop");
            awaitExit(clients);
            long runEnd = System.nanoTime();
            writeFaults(directory.resolve("faults.tsv"), faults.injected());
            storage.dump(directory.resolve("storage.tsv"));
            writeRun(directory.resolve("run.properties"), options, storage.description(), runStart, faultsEnd, runEnd);
        }
        finally {
            clients.forEach(Process::destroyForcibly);
            Optional.ofNullable(paths).ifPresent(ClientPaths::close);
            nodes.forEach(RedisNode::close);
            Optional.ofNullable(group).ifPresent(SentinelFailover::close);
            Optional.ofNullable(cluster).ifPresent(ClusterFailover::close);
            Optional.ofNullable(hosts).ifPresent((made) -> made.forEach(NetworkHost::close));
            Optional.ofNullable(cuts).ifPresent(ProcessCuts::close);
            Optional.ofNullable(storageStart).ifPresent(ChaosRun::closeStorage);
        }
        return HistoryChecker.checkAndWrite(directory);
    }

    /** The storage's server once it started, or its start's failure. */
    private static StorageServer started(CompletableFuture<StorageServer> start) {
        try {
            return start.join();
        }
        catch (CompletionException ex) {
            throw (ex.getCause() instanceof RuntimeException failure) ? failure : ex;
        }
    }

    /** Stops the storage's server once its start ended (at once if it had), whether the run got to use it or not. */
    private static void closeStorage(CompletableFuture<StorageServer> start) {
        Optional.ofNullable(start.handle((server, failure) -> server).join()).ifPresent(StorageServer::close);
    }

    /** What the client processes are told: the nodes (some processes' own lists among them), the storage, how to lock. */
    private static ChaosSettings settings(ChaosOptions options, List<String> uris, Map<Integer, List<String>> clientNodes, String storage,
            Path directory) {
        return new ChaosSettings(List.copyOf(uris), clientNodes, storage, options.threads(), ChaosOptions.KEYS, ChaosOptions.MIN_TTL_MILLIS,
                options.maxTtlMillis(), options.clientMaxTtlMillis(), ChaosOptions.WAIT_MILLIS, List.copyOf(options.kinds()),
                options.longHolds(), options.fencing(), options.quarantine(), options.seed(), directory.toAbsolutePath(), options.leader(),
                options.storageFence());
    }

    /** Creates the run's directory, or empties it of an earlier run's files. */
    private static Path emptyDirectory(Path path) throws IOException {
        Path directory = Files.createDirectories(path);
        try (var old = Files.list(directory)) {
            for (Path file : (Iterable<Path>) old::iterator) {
                Files.deleteIfExists(file);
            }
        }
        return directory;
    }

    /**
     * The cuts of single processes when the run may draw {@link FaultKind#CLUSTER_PARTITION} and they can be made here;
     * null otherwise, when that fault is skipped with a message (or the run fails, where the build requires it:
     * {@link Capabilities#NFT}).
     */
    private static ProcessCuts processCuts(ChaosOptions options) {
        if (!options.faults().contains(FaultKind.CLUSTER_PARTITION)) {
            return null;
        }
        if (!ProcessCuts.available()) {
            if (Capabilities.required(Capabilities.NFT)) {
                throw new IllegalStateException("processes cannot be cut here (run as root with nftables), and this build requires "
                        + "the cluster partition fault (" + Capabilities.VARIABLE + ")");
            }
            System.out.println("processes cannot be cut here (run as root with nftables): the cluster partition fault is skipped");
            return null;
        }
        return ProcessCuts.create();
    }

    /**
     * A network namespace for each standalone node when the run may draw a partition fault and namespaces can be made
     * here; null otherwise, when the partition faults are skipped with a message (or the run fails, where the build
     * requires them: {@link Capabilities#NETNS}).
     */
    private static List<NetworkHost> partitionHosts(ChaosOptions options, int standalone) {
        if (options.faults().stream().noneMatch(FaultKind::partitions)) {
            return null;
        }
        if (!NetworkHost.available()) {
            if (Capabilities.required(Capabilities.NETNS)) {
                throw new IllegalStateException("network namespaces cannot be made here (run as root with iproute2), and this build "
                        + "requires the partition faults (" + Capabilities.VARIABLE + ")");
            }
            System.out.println("network namespaces cannot be made here (run as root with iproute2): the partition faults are skipped");
            return null;
        }
        List<NetworkHost> hosts = new ArrayList<>();
        try {
            for (int i = 0; i < standalone; i++) {
                hosts.add(NetworkHost.create(options.clients()));
            }
        }
        catch (RuntimeException ex) {
            hosts.forEach(NetworkHost::close);
            throw ex;
        }
        return hosts;
    }

    /** Each client's node list: its own link's address for each standalone node, the others' URIs as they are. */
    private static Map<Integer, List<String>> linkUris(List<RedisNode> nodes, List<String> uris, int clients) {
        Map<Integer, List<String>> byClient = new java.util.HashMap<>();
        for (int client = 0; client < clients; client++) {
            List<String> mine = new ArrayList<>(uris);
            for (RedisNode node : nodes) {
                mine.set(uris.indexOf(node.uri()), "redis://" + node.host().addressFor(client) + ":" + node.port());
            }
            byClient.put(client, List.copyOf(mine));
        }
        return byClient;
    }

    /**
     * Starts the standalone nodes of the lock into {@code nodes}, the last under libfaketime when it is installed, each in
     * its host when {@code hosts} is not null.
     * @return the file of the faked clock's offset, or null without libfaketime
     */
    private static Path startStandalone(int count, Path directory, List<RedisNode> nodes, List<NetworkHost> hosts) throws IOException {
        for (int i = 0; i < count - 1; i++) {
            nodes.add((hosts != null) ? RedisNode.startIn(hosts.get(i), Map.of(), false) : RedisNode.start());
        }
        Path faketime = faketime().orElse(null);
        if (faketime == null) {
            if (Capabilities.required(Capabilities.FAKETIME)) {
                throw new IllegalStateException("libfaketime is not installed (apt-get install libfaketime), and this build requires the clock "
                        + "faults (" + Capabilities.VARIABLE + ")");
            }
            System.out.println("libfaketime is not installed (apt-get install libfaketime): the clock faults are skipped");
            nodes.add((hosts != null) ? RedisNode.startIn(hosts.get(count - 1), Map.of(), false) : RedisNode.start());
            return null;
        }
        Path clockFile = directory.resolve("clock-offset");
        Files.writeString(clockFile, "+0s\n");
        Map<String, String> faked = Map.of("LD_PRELOAD", faketime.toString(), "FAKETIME_TIMESTAMP_FILE", clockFile.toAbsolutePath().toString(),
                "FAKETIME_NO_CACHE", "1");
        nodes.add((hosts != null) ? RedisNode.startIn(hosts.get(count - 1), faked, true) : RedisNode.startShipped(faked));
        return clockFile;
    }

    /** The libfaketime library of this machine, if it is installed. */
    static Optional<Path> faketime() {
        return FAKETIME.stream().filter(Files::isReadable).findFirst();
    }

    /** Injects faults, each after a pause of 0.5 to 2 s, until the fault phase is over; returns when the last ended. */
    private static long injectFaults(ChaosOptions options, Faults faults, long runStart) {
        Random random = new Random(options.seed());
        List<FaultKind> kinds = options.faults().stream().filter(faults::supports).toList();
        List<FaultKind> deck = new ArrayList<>();
        long end = runStart + TimeUnit.SECONDS.toNanos(options.faultSeconds());
        try {
            while (System.nanoTime() - end < 0) {
                Faults.sleep(500 + random.nextInt(1_500));
                if (kinds.isEmpty() || System.nanoTime() - end >= 0) {
                    continue;
                }
                if (deck.isEmpty()) { // every kind once per round, in a seeded order
                    deck.addAll(kinds);
                    java.util.Collections.shuffle(deck, random);
                }
                faults.inject(deck.remove(deck.size() - 1), random);
            }
        }
        finally {
            faults.heal();
        }
        return System.nanoTime();
    }

    /**
     * Starts client process {@code index} with the given JVM options ({@link ChaosOptions#clientSwitches()}: the core's
     * internal switches that turn a protection off, for the controls of {@link FaultKind#DEPOSED_MASTER} and
     * {@link FaultKind#ROLLING_RESTART_ALL}).
     */
    private static Process startClient(Path properties, int index, Path directory, List<String> switches) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(switches);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChaosClient.class.getName(),
                properties.toAbsolutePath().toString(), Integer.toString(index)));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(directory.resolve("client-" + index + ".log").toFile())
                .start();
    }

    private static void awaitReady(Path directory, List<Process> clients) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLIENT_START_TIMEOUT_MILLIS);
        for (int i = 0; i < clients.size(); i++) {
            while (!Files.exists(directory.resolve("ready-" + i))) {
                if (!clients.get(i).isAlive() || System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("client " + i + " did not start; its output:\n"
                            + Files.readString(directory.resolve("client-" + i + ".log")));
                }
                Faults.sleep(50);
            }
        }
    }

    private static void awaitExit(List<Process> clients) throws InterruptedException {
        for (Process client : clients) {
            if (!client.waitFor(30, TimeUnit.SECONDS)) {
                client.destroyForcibly();
            }
        }
    }

    private static void writeFaults(Path file, List<History.Fault> faults) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (History.Fault fault : faults) {
                out.write(fault.line());
                out.write('\n');
            }
        }
    }

    private static void writeRun(Path file, ChaosOptions options, String storage, long runStart, long faultsEnd, long runEnd)
            throws IOException {
        Properties run = new Properties();
        run.setProperty("seed", Long.toString(options.seed()));
        run.setProperty("clients", Integer.toString(options.clients()));
        run.setProperty("threads", Integer.toString(options.threads()));
        run.setProperty("shortClients", Integer.toString(options.shortClients()));
        run.setProperty("clientMaxTtlMillis", ChaosSettings.joined(options.clientMaxTtlMillis()));
        run.setProperty("faults", options.faults().toString());
        run.setProperty("quarantine", options.quarantine().name());
        run.setProperty("longHolds", Double.toString(options.longHolds()));
        run.setProperty("kinds", options.kinds().toString());
        run.setProperty("fencing", Boolean.toString(options.fencing()));
        run.setProperty("sentinelConfirmation", Boolean.toString(options.sentinelConfirmation()));
        run.setProperty("leader", Boolean.toString(options.leader()));
        run.setProperty("leaseRepairs", Boolean.toString(options.leaseRepairs()));
        run.setProperty("storage", storage);
        run.setProperty("storageFence", Boolean.toString(options.storageFence()));
        run.setProperty("formerRecordReads", Boolean.toString(options.formerRecordReads()));
        run.setProperty("runStartNanos", Long.toString(runStart));
        run.setProperty("faultsEndNanos", Long.toString(faultsEnd));
        run.setProperty("runEndNanos", Long.toString(runEnd));
        run.setProperty("maxTtlMillis", Long.toString(options.maxTtlMillis()));
        run.setProperty("waitMillis", Long.toString(ChaosOptions.WAIT_MILLIS));
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            run.store(out, "chaos run");
        }
    }

}
