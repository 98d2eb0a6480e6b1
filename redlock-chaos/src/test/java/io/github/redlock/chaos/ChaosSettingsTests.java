package io.github.redlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code client.properties} tells each client process: the node list, its own when it has one, and whether it runs
 * for leader.
 */
class ChaosSettingsTests {

    private static final List<String> NODES = List.of("redis://127.0.0.1:7000", "redis://127.0.0.1:7001",
            "redis-sentinel://127.0.0.1:26379,127.0.0.1:26380,127.0.0.1:26381#redlock");

    @TempDir
    Path directory;

    @Test
    void aClientWithItsOwnNodeListLocksOnItAndTheOthersOnTheRunsList() throws Exception {
        List<String> proxied = List.of("redis://127.0.0.1:9000", "redis://127.0.0.1:7001",
                "redis-sentinel://127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:9003#redlock");
        Path file = this.directory.resolve("client.properties");
        settings(Map.of(0, proxied)).store(file);
        ChaosSettings loaded = ChaosSettings.load(file);
        assertThat(loaded.nodes(0)).isEqualTo(proxied);
        assertThat(loaded.nodes(1)).isEqualTo(NODES);
        assertThat(loaded).isEqualTo(settings(Map.of(0, proxied)));
    }

    @Test
    void aFileWithoutClientNodeListsGivesEveryClientTheRunsList() throws Exception {
        Path file = this.directory.resolve("client.properties");
        settings(Map.of()).store(file);
        assertThat(Files.readString(file)).doesNotContain("nodes.");
        ChaosSettings loaded = ChaosSettings.load(file);
        assertThat(loaded.clientNodes()).isEmpty();
        assertThat(loaded.nodes(0)).isEqualTo(NODES);
        assertThat(loaded).isEqualTo(settings(Map.of()));
    }

    @Test
    void aClientOfARunWithALeaderElectionRunsForLeader() throws Exception {
        Path file = this.directory.resolve("client.properties");
        settings(Map.of(), true).store(file);
        assertThat(Files.readString(file)).contains("leader=true");
        ChaosSettings loaded = ChaosSettings.load(file);
        assertThat(loaded.leader()).isTrue();
        assertThat(loaded).isEqualTo(settings(Map.of(), true));
    }

    @Test
    void aFileWithoutTheLeaderElectionIsReadAsARunWithoutOne() throws Exception {
        Path file = this.directory.resolve("client.properties");
        settings(Map.of(), true).store(file);
        // As a run before the leader election wrote it.
        Files.write(file, Files.readAllLines(file).stream().filter((line) -> !line.startsWith("leader=")).toList());
        ChaosSettings loaded = ChaosSettings.load(file);
        assertThat(loaded.leader()).isFalse();
        assertThat(loaded).isEqualTo(settings(Map.of(), false));
    }

    @Test
    void theControlOfTheStoragesFenceTellsItsClientsAndAFileWithoutItKeepsTheFenceOn() throws Exception {
        Path file = this.directory.resolve("client.properties");
        ChaosSettings control = withStorageFence(settings(Map.of()), false);
        control.store(file);
        assertThat(Files.readString(file)).contains("storageFence=false");
        assertThat(ChaosSettings.load(file)).isEqualTo(control);
        // As a run before the storage's fence could be turned off wrote it.
        Files.write(file, Files.readAllLines(file).stream().filter((line) -> !line.startsWith("storageFence=")).toList());
        assertThat(ChaosSettings.load(file).storageFence()).isTrue();
        assertThat(ChaosSettings.load(file)).isEqualTo(settings(Map.of()));
    }

    @Test
    void everyClientProcessKeepsAConnectionToTheStoragePerThreadWithinWhatTheServerAllowsThemAll() {
        assertThat(settings(Map.of()).storageConnections()).as("2 threads, 2 processes").isEqualTo(2);
        ChaosSettings many = new ChaosSettings(NODES, Map.of(), "jdbc:postgresql://127.0.0.1:5432/postgres?user=redlock", 16, 8, 100,
                2_000, java.util.Collections.nCopies(8, 2_000L), 2_000, List.of(History.Kind.FENCED), 1.0, true, RestartQuarantine.AUTO, 42,
                this.directory, false);
        assertThat(many.storageConnections()).as("16 threads, 8 processes").isEqualTo(ChaosSettings.STORAGE_CONNECTIONS / 8);
    }

    private static ChaosSettings withStorageFence(ChaosSettings s, boolean fence) {
        return new ChaosSettings(s.nodes(), s.clientNodes(), s.storage(), s.threads(), s.keys(), s.minTtlMillis(), s.maxTtlMillis(),
                s.clientMaxTtlMillis(), s.waitMillis(), s.kinds(), s.longHolds(), s.fencing(), s.quarantine(), s.seed(), s.directory(),
                s.leader(), fence);
    }

    private ChaosSettings settings(Map<Integer, List<String>> clientNodes) {
        return settings(clientNodes, false);
    }

    private ChaosSettings settings(Map<Integer, List<String>> clientNodes, boolean leader) {
        return new ChaosSettings(NODES, clientNodes, "redis://127.0.0.1:7100", 2, 8, 100, 2_000, List.of(2_000L, 500L), 2_000,
                List.of(History.Kind.EXCLUSIVE), 1.0, true, RestartQuarantine.AUTO, 42, this.directory, leader);
    }

}
