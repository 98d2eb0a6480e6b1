package io.github.redlock.core;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Another Redlock client on the same nodes and key: node-redlock (v4, the Node.js client of the algorithm's page, with
 * its own random tokens) and this client take one lock in turns, each checking on a separate witness server that it is
 * alone while it holds it. The two exclude each other: their exclusive locks are the same plain {@code SET NX PX} keys
 * (this client's key is its prefix followed by the name). The control runs node-redlock on another key, where nothing
 * excludes the two, and the witness sees them overlap. Needs Node.js and the npm registry (the test installs
 * node-redlock and ioredis into {@code target/}); skipped with a message without them.
 */
class NodeRedlockInteropIntegrationTests {

    private static final int NODE_ITERATIONS = 300;

    /** Three lock nodes, and a fourth as the witness of who is inside. */
    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(4);

    private static Path modules;

    @BeforeAll
    static void installNodeRedlock() throws Exception {
        Optional<Path> node = onPath("node");
        Optional<Path> npm = onPath("npm");
        Capabilities.assume(Capabilities.NODE_REDLOCK, node.isPresent() && npm.isPresent(),
                "Node.js is not installed (apt-get install nodejs npm): the interoperation test with node-redlock is skipped");
        modules = Path.of("target", "node-redlock-interop").toAbsolutePath();
        Files.createDirectories(modules);
        if (!Files.isDirectory(modules.resolve("node_modules").resolve("redlock"))) {
            Process install = new ProcessBuilder(npm.get().toString(), "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                    modules.toString(), "redlock@4.2.0", "ioredis@5.9.3").redirectErrorStream(true).start();
            boolean ended = install.waitFor(180, TimeUnit.SECONDS);
            String output = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ended) {
                install.destroyForcibly();
            }
            Capabilities.assume(Capabilities.NODE_REDLOCK, ended && install.exitValue() == 0,
                    "npm could not install node-redlock 4.2.0 and ioredis (is the npm registry reachable?): the interoperation "
                            + "test is skipped. npm said: " + output.strip());
        }
        try (InputStream script = NodeRedlockInteropIntegrationTests.class.getResourceAsStream("interop/node-redlock-interop.js")) {
            Files.write(modules.resolve("node-redlock-interop.js"), script.readAllBytes());
        }
    }

    @Test
    void nodeRedlockAndThisClientNeverHoldOneKeyAtOnce() throws Exception {
        Counts counts = contend("redlock:job");
        System.out.println("node-redlock interop on one key: " + counts);
        assertThat(counts.nodeGranted()).as("node-redlock's grants").isPositive();
        assertThat(counts.javaGranted()).as("this client's grants").isPositive();
        assertThat(counts.nodeRefused() + counts.javaRefused()).as("refusals: the two contended").isPositive();
        assertThat(counts.nodeOverlaps() + counts.javaOverlaps()).as("times the witness saw both inside").isZero();
    }

    @Test
    void onDifferentKeysTheWitnessSeesThemOverlap() throws Exception {
        Counts counts = contend("redlock:another-job");
        System.out.println("node-redlock on another key (the control): " + counts);
        assertThat(counts.nodeOverlaps() + counts.javaOverlaps()).as("times the witness saw both inside").isPositive();
    }

    /** Runs node-redlock on {@code nodeKey} while this client takes {@code job}, until node-redlock is done. */
    private Counts contend(String nodeKey) throws Exception {
        List<String> command = new ArrayList<>(List.of(onPath("node").orElseThrow().toString(), "node-redlock-interop.js",
                redis.uris().get(3), nodeKey, Integer.toString(NODE_ITERATIONS)));
        command.addAll(redis.uris().subList(0, 3));
        RedisClient witnessClient = RedisClient.create(redis.uris().get(3));
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris().subList(0, 3)).build();
                var connection = witnessClient.connect()) {
            RedisCommands<String, String> witness = connection.sync();
            witness.del("inside");
            Process other = new ProcessBuilder(command).directory(modules.toFile()).redirectErrorStream(true).start();
            int granted = 0;
            int refused = 0;
            int overlaps = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (other.isAlive() && System.nanoTime() < deadline) {
                Optional<RedlockLease> lease = redlock.tryAcquire("job", Duration.ofSeconds(2));
                if (lease.isEmpty()) {
                    refused++;
                    Thread.sleep(1);
                    continue;
                }
                granted++;
                if (witness.incr("inside") != 1) {
                    overlaps++;
                }
                Thread.sleep(3);
                witness.decr("inside");
                lease.get().release();
            }
            assertThat(other.waitFor(30, TimeUnit.SECONDS)).as("node-redlock ended").isTrue();
            String output = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(other.exitValue()).as("node-redlock's exit code; it said:%n%s", output).isZero();
            Matcher matcher = Pattern.compile("\\{\"granted\":(\\d+),\"refused\":(\\d+),\"overlaps\":(\\d+)}").matcher(output);
            assertThat(matcher.find()).as("node-redlock's counts in:%n%s", output).isTrue();
            return new Counts(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), Integer.parseInt(matcher.group(3)),
                    granted, refused, overlaps);
        }
        finally {
            witnessClient.shutdown();
        }
    }

    private static Optional<Path> onPath(String name) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private record Counts(int nodeGranted, int nodeRefused, int nodeOverlaps, int javaGranted, int javaRefused, int javaOverlaps) {
    }

}
