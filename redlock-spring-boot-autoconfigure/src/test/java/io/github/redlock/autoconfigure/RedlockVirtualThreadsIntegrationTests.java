package io.github.redlock.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library on virtual threads ({@code spring.threads.virtual.enabled=true}), run by {@link VirtualThreadsRun} in
 * a JVM of Java 21 or later (the library's baseline, and this build's, is 17): 10,000 virtual threads that call an
 * annotated method on 16 keys, waiting for each other, all finish, never overlap on a key, and never pin a carrier
 * thread (Java Flight Recorder's {@code jdk.VirtualThreadPinned}, at any duration); the lease-lost events are
 * published on a virtual thread. The control shows that the recording catches a pinned virtual thread. Skipped
 * when no Java 21 or later is found: the running JVM, {@code -Dredlock.test.java21=<java home>}, the
 * {@code JAVA21_HOME} environment variable, or a JDK under {@code /usr/lib/jvm}.
 */
class RedlockVirtualThreadsIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private static Path java;

    @BeforeAll
    static void findJava21() {
        Optional<Path> found = java21OrLater();
        Capabilities.assume(Capabilities.JDK21, found.isPresent(),
                "No Java 21 or later found: set -Dredlock.test.java21 or JAVA21_HOME to run the virtual thread tests");
        java = found.get();
    }

    @Test
    void tenThousandVirtualThreadsContendWithoutOverlapOrPinningAndLossesArePublishedOnAVirtualThread() throws Exception {
        Map<String, String> results = run(10_000, false);
        assertThat(results).containsEntry("completed", "10000").containsEntry("failed", "0").containsEntry("maxOverlap", "1")
                .containsEntry("allVirtual", "true").containsEntry("pinned", "0")
                .containsEntry("lostEventPublished", "true").containsEntry("lostEventOnVirtualThread", "true");
    }

    @Test
    void theRecordingCatchesAVirtualThreadPinnedInAClassInitializer() throws Exception {
        Map<String, String> results = run(100, true);
        assertThat(results).containsEntry("completed", "100");
        assertThat(Integer.parseInt(results.get("pinned"))).isPositive();
    }

    private Map<String, String> run(int threads, boolean control) throws IOException, InterruptedException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", classPath, "-Xmx1g", "-Djdk.tracePinnedThreads=full",
                VirtualThreadsRun.class.getName(), String.join(",", redis.uris()), Integer.toString(threads)));
        if (control) {
            command.add("control");
        }
        Path output = Files.createTempFile("redlock-virtual-threads", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            boolean exited = process.waitFor(5, TimeUnit.MINUTES);
            String log = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(exited).as("the run ends within 5 minutes; its output:%n%s", log).isTrue();
            assertThat(process.exitValue()).as("the run's exit code; its output:%n%s", log).isZero();
            Map<String, String> results = new HashMap<>();
            log.lines().filter((line) -> line.startsWith("RESULT ")).map((line) -> line.substring(7).split("=", 2))
                    .forEach((pair) -> results.put(pair[0], pair[1]));
            System.out.println(log.lines().filter((line) -> line.startsWith("RESULT ") || line.startsWith("PINNED"))
                    .reduce("Virtual thread run (" + threads + " threads" + (control ? ", control" : "") + "):", (a, b) -> a + "\n  " + b));
            assertThat(results).as("the run's results; its output:%n%s", log).containsKey("pinned");
            return results;
        }
        finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(output);
        }
    }

    /** A {@code java} of Java 21 or later: this JVM's, a configured one, or one under {@code /usr/lib/jvm}. */
    static Optional<Path> java21OrLater() {
        if (Runtime.version().feature() >= 21) {
            return Optional.of(Paths.get(System.getProperty("java.home"), "bin", "java"));
        }
        List<Path> homes = new ArrayList<>();
        Stream.of(System.getProperty("redlock.test.java21"), System.getenv("JAVA21_HOME")).filter((home) -> home != null && !home.isBlank())
                .map(Paths::get).forEach(homes::add);
        Path jvms = Paths.get("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> installed = Files.list(jvms)) {
                installed.sorted().forEach(homes::add);
            }
            catch (IOException ex) {
                // none there
            }
        }
        return homes.stream().filter((home) -> featureOf(home) >= 21).map((home) -> home.resolve("bin").resolve("java"))
                .filter(Files::isExecutable).findFirst();
    }

    /** The feature version in a JDK's {@code release} file ({@code JAVA_VERSION="25.0.1"}), or 0. */
    private static int featureOf(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(version.split("[.+-]")[0]);
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // not a JDK
        }
        return 0;
    }

}
