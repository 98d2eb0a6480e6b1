package io.github.redlock.sample;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.metrics.RedlockMetrics;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alerting rules and the dashboard shipped in {@code docs/operations}: every meter they query is one the starter's
 * Prometheus registry writes (scraped from a running application on three real nodes), and the rules pass their own
 * promtool tests. A rule on a misspelt or renamed meter would never fire; this is what catches it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OperationsRulesIntegrationTests {

    private static final Path OPERATIONS = Path.of("..", "docs", "operations");

    /** A Prometheus series name of the starter's, in a rule's expression or a dashboard's query. */
    private static final Pattern SERIES = Pattern.compile("\\bredlock_[a-z_]+\\b");

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @DynamicPropertySource
    static void nodes(DynamicPropertyRegistry registry) {
        registry.add("redlock.nodes", () -> String.join(",", redis.uris()));
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    private int port;

    @Autowired
    private Redlock redlock;

    @Autowired
    private RedlockMetrics metrics;

    @Test
    void everySeriesTheRulesAndTheDashboardQueryIsOneTheStartersRegistryWrites() throws Exception {
        // Every kind of meter once: annotated acquisitions that succeed and fail (the contention demo), a release, an
        // extension, node commands, and a loss (counted as the starter counts one).
        assertThat(post("/demo/contention?payments=20").statusCode()).isEqualTo(200);
        RedlockLease lease = this.redlock.acquire("operations", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
        assertThat(lease.release()).isTrue();
        this.metrics.lost("operations");
        String scrape = get("/actuator/prometheus").body();
        Set<String> written = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                written.add(line.split("[{ ]", 2)[0]);
            }
        }
        Set<String> queried = new TreeSet<>();
        queried.addAll(series(OPERATIONS.resolve("redlock-alerts.yml")));
        queried.addAll(series(OPERATIONS.resolve("redlock-dashboard.json")));
        assertThat(queried).as("series the rules and the dashboard query").contains("redlock_nodes_voting", "redlock_quorum",
                "redlock_acquire_seconds_count", "redlock_lost_total", "redlock_node_command_seconds_count", "redlock_releases_owed",
                "redlock_acquire_seconds_max");
        assertThat(written).as("series the registry writes (all of them: %s)", written).containsAll(queried);
        System.out.println("rules and dashboard query " + queried.size() + " series, all written: " + queried);
    }

    @Test
    void theRulesPassTheirPromtoolTests() throws Exception {
        File promtool = promtool();
        Capabilities.assume(Capabilities.PROMTOOL, promtool != null, "promtool is not installed (apt-get install prometheus): the "
                + "rules' promtool tests are skipped");
        assertThat(run(promtool.getPath(), "check", "rules", "redlock-alerts.yml")).contains("SUCCESS: 8 rules found");
        assertThat(run(promtool.getPath(), "test", "rules", "redlock-alerts-test.yml")).contains("SUCCESS");
    }

    private static Set<String> series(Path file) throws IOException {
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.stripLeading().startsWith("#")) {
                continue; // a comment may name a meter that no expression queries
            }
            Matcher matcher = SERIES.matcher(line);
            while (matcher.find()) {
                names.add(matcher.group());
            }
        }
        return names;
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).directory(OPERATIONS.toFile()).redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool ended within 60 s").isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("promtool's exit code; its output:%n%s", output).isZero();
        return output;
    }

    private static File promtool() {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(directory, "promtool");
            if (candidate.canExecute()) {
                return candidate;
            }
        }
        return null;
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

}
