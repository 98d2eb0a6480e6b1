package io.github.redlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Makes sure no {@code redis-server} outlives the JVM that started it. A shutdown hook kills this JVM's
 * processes at exit. A JVM that ends without running its hooks (SIGKILL, {@code Runtime.halt}, as JMH does
 * with forks that do not finish) cannot clean up; so each started process is also recorded in a file
 * under the temporary folder, and every JVM that starts nodes first kills the processes of JVMs that are gone.
 */
final class ProcessReaper {

    private static final Path RECORDS = Path.of(System.getProperty("java.io.tmpdir"), "redlock-test-processes");

    private static final long OWN_PID = ProcessHandle.current().pid();

    private static final Map<Process, Path> LIVE = new ConcurrentHashMap<>();

    static {
        reapOrphans();
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::killAll, "redlock-redis-reaper"));
    }

    private ProcessReaper() {
    }

    static void track(Process process, Path workingDirectory) {
        Path record = RECORDS.resolve(OWN_PID + "-" + process.pid());
        try {
            Files.createDirectories(RECORDS);
            Files.writeString(record, workingDirectory.toString(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            // Without the record only the shutdown hook protects against leftovers.
        }
        LIVE.put(process, record);
    }

    static void forget(Process process) {
        Path record = LIVE.remove(process);
        if (record != null) {
            deleteQuietly(record);
        }
    }

    private static void killAll() {
        LIVE.forEach((process, record) -> {
            process.destroyForcibly(); // SIGKILL also ends a process stopped with SIGSTOP
            deleteQuietly(record);
        });
    }

    /** Kills redis-server processes recorded by JVMs that no longer run, and deletes their folders. */
    static void reapOrphans() {
        if (!Files.isDirectory(RECORDS)) {
            return;
        }
        try (Stream<Path> records = Files.list(RECORDS)) {
            records.forEach(ProcessReaper::reapIfOrphaned);
        }
        catch (IOException ex) {
            // Best effort.
        }
    }

    private static void reapIfOrphaned(Path record) {
        String[] pids = record.getFileName().toString().split("-");
        if (pids.length != 2) {
            return;
        }
        long owner = Long.parseLong(pids[0]);
        if (ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
            return; // another JVM that still runs owns it
        }
        Optional<ProcessHandle> server = ProcessHandle.of(Long.parseLong(pids[1]));
        // Only a Redis or Valkey binary, so that a recycled pid is never touched. Debian's redis-server is a link
        // to redis-check-rdb (valkey-server to valkey-check-rdb), which is what the process's executable then reads.
        server.filter((handle) -> handle.info().command().map((command) -> Path.of(command).getFileName().toString())
                .filter((name) -> name.startsWith("redis-") || name.startsWith("valkey-")).isPresent())
                .ifPresent(ProcessHandle::destroyForcibly);
        try {
            Path directory = Path.of(Files.readString(record, StandardCharsets.UTF_8).trim());
            if (directory.getFileName().toString().startsWith("redlock-redis-node")) {
                try (Stream<Path> files = Files.walk(directory)) {
                    files.sorted(Comparator.reverseOrder()).forEach(ProcessReaper::deleteQuietly);
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // Best effort.
        }
        deleteQuietly(record);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException ex) {
            // Best effort.
        }
    }

}
