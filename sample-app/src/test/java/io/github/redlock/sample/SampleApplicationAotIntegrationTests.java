package io.github.redlock.sample;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as a native image would run it, minus GraalVM: processed ahead of time by
 * {@code spring-boot:process-aot} (prepare-package), then started in its own JVM with
 * {@code -Dspring.aot.enabled=true} on its runtime classpath, against three real local nodes. Its health is UP
 * and the contention demo charges a contended order once. Run by failsafe (integration-test), after the
 * processing; {@code ./mvnw verify} runs it.
 */
class SampleApplicationAotIntegrationTests {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

    private static final Pattern AOT_STARTING = Pattern.compile("Starting AOT-processed SampleApplication.*");

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Process application;

    /** Kills the application if this JVM exits before {@link #stopTheApplication()} ran. */
    private Thread killer;

    @AfterEach
    void stopTheApplication() throws InterruptedException {
        if (this.application != null) {
            this.application.destroy(); // SIGTERM: a graceful shutdown releases the connections
            if (!this.application.waitFor(20, TimeUnit.SECONDS)) {
                this.application.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Runtime.getRuntime().removeShutdownHook(this.killer);
        }
    }

    @Test
    void theAotProcessedSampleStartsHealthyAndChargesAContendedOrderOnce() throws Exception {
        Path log = Path.of("target", "aot-sample.log");
        this.application = start(log);
        this.killer = new Thread(this.application::destroyForcibly, "aot-sample-killer");
        Runtime.getRuntime().addShutdownHook(this.killer);
        int port = Integer.parseInt(await(log, PORT, START_TIMEOUT).group(1));
        String aotLine = await(log, AOT_STARTING, Duration.ZERO).group();
        System.out.println("AOT run: " + aotLine);

        HttpResponse<String> health = awaitResponse(() -> get(port, "/actuator/health"),
                (response) -> response.statusCode() == 200, Duration.ofSeconds(60));
        assertThat((String) JsonPath.read(health.body(), "$.status")).isEqualTo("UP");
        assertThat((String) JsonPath.read(health.body(), "$.components.redlock.status")).isEqualTo("UP");
        assertThat((Integer) JsonPath.read(health.body(), "$.components.redlock.details.reachable")).isEqualTo(3);

        HttpResponse<String> contention = post(port, "/demo/contention?payments=20");
        assertThat(contention.statusCode()).as(contention.body()).isEqualTo(200);
        String body = contention.body();
        assertThat((Integer) JsonPath.read(body, "$.charges")).isEqualTo(1);
        assertThat((Integer) JsonPath.read(body, "$.charged")).isEqualTo(1);
        int repeated = JsonPath.read(body, "$.repeated");
        int refused = JsonPath.read(body, "$.refused");
        assertThat(repeated + refused).isEqualTo(19);
        assertThat(((Number) JsonPath.read(body, "$.lock.acquired")).intValue()).isEqualTo(1 + repeated);

        HttpResponse<String> endpoint = get(port, "/actuator/redlock");
        assertThat(endpoint.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(endpoint.body(), "$.quorum")).isEqualTo(2);
        assertThat((List<?>) JsonPath.read(endpoint.body(), "$.nodes[?(@.state == 'CONNECTED')]")).hasSize(3);
    }

    /** Starts the processed application in a new JVM, its output in {@code log} (overwritten). */
    private static Process start(Path log) throws IOException {
        Path classes = Path.of(System.getProperty("sample.aot.classes", "target/classes"));
        Path classpathFile = Path.of(System.getProperty("sample.aot.classpath-file", "target/aot-runtime-classpath.txt"));
        assertThat(classes.resolve("io/github/redlock/sample/SampleApplication__ApplicationContextInitializer.class"))
                .as("the AOT-processed classes (spring-boot:process-aot runs in prepare-package: use ./mvnw verify)").exists();
        assertThat(classpathFile).as("the runtime classpath (dependency:build-classpath in prepare-package)").exists();
        String classpath = classes + File.pathSeparator + Files.readString(classpathFile).trim();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dspring.aot.enabled=true", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", classpath,
                "io.github.redlock.sample.SampleApplication", "--server.port=0",
                "--redlock.nodes=" + String.join(",", redis.uris())));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits, checking twice a second, for a line of the log to match; fails with the log if the JVM exits first. */
    private Matcher await(Path log, Pattern pattern, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String output = Files.readString(log);
            Matcher matcher = pattern.matcher(output);
            if (matcher.find()) {
                return matcher;
            }
            if (!this.application.isAlive() || System.nanoTime() - deadline > 0) {
                throw new AssertionError("No line matching '" + pattern + "' within " + timeout.toSeconds() + " s"
                        + (this.application.isAlive() ? "" : "; the application exited") + ". Its output:\n" + output);
            }
            Thread.sleep(500);
        }
    }

    /** Calls, twice a second, until an answer is {@code done}. */
    private static HttpResponse<String> awaitResponse(HttpCall call, Predicate<HttpResponse<String>> done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Optional<HttpResponse<String>> last = Optional.empty();
        while (System.nanoTime() - deadline < 0) {
            try {
                last = Optional.of(call.send());
                if (done.test(last.get())) {
                    return last.get();
                }
            }
            catch (IOException ex) {
                // not answering yet
            }
            Thread.sleep(500);
        }
        throw new AssertionError("No expected answer within " + timeout.toSeconds() + " s; last: "
                + last.map((response) -> response.statusCode() + " " + response.body()).orElse("none"));
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(int port, String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @FunctionalInterface
    private interface HttpCall {

        HttpResponse<String> send() throws IOException, InterruptedException;

    }

}
