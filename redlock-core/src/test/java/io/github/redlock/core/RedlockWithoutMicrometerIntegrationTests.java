package io.github.redlock.core;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is an optional dependency of the core: an application without it on its class path locks,
 * extends and releases as usual. Runs {@link Main} in a JVM whose class path is this test's without any
 * Micrometer jar.
 */
class RedlockWithoutMicrometerIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @Test
    void theLockWorksWithoutMicrometerOnTheClassPath() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String withoutMicrometer = Arrays.stream(classPath.split(File.pathSeparator))
                .filter((entry) -> !entry.contains(File.separator + "micrometer")).collect(Collectors.joining(File.pathSeparator));
        assertThat(withoutMicrometer).as("the class path left").contains("lettuce-core").doesNotContain("micrometer");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                withoutMicrometer, Main.class.getName()));
        command.addAll(redis.uris());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the JVM without Micrometer ends").isTrue();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(output).contains("Micrometer absent", "locked, extended and released");
            assertThat(process.exitValue()).as(output).isZero();
        }
        finally {
            process.destroyForcibly();
        }
    }

    /** Locks, extends and releases on the nodes given as arguments; fails if Micrometer can be loaded. */
    static final class Main {

        private Main() {
        }

        public static void main(String[] args) {
            try {
                Class.forName("io.micrometer.observation.ObservationRegistry");
                System.out.println("Micrometer present: the test's class path is wrong");
                System.exit(2);
            }
            catch (ClassNotFoundException ex) {
                System.out.println("Micrometer absent");
            }
            try (Redlock redlock = Redlock.builder().nodes(args).nodeTimeout(Duration.ofSeconds(2)).build()) {
                RedlockLease lease = redlock.acquire("plain", Duration.ofSeconds(10), Duration.ofSeconds(5));
                boolean extended = lease.extend(Duration.ofSeconds(10));
                lease.autoExtend(Duration.ofSeconds(30));
                boolean released = lease.release();
                System.out.println((extended && released) ? "locked, extended and released" : "extended " + extended + ", released " + released);
            }
            System.exit(0);
        }

    }

}
