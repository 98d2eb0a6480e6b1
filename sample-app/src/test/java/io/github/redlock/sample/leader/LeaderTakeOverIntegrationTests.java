package io.github.redlock.sample.leader;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.sample.SampleApplication;
import io.github.redlock.sample.leader.OutboxRelay.Status;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox relay's leader election between two instances of the sample on five real nodes, seen through
 * {@code GET /leader}: one instance leads and relays, the other follows and does not; when the leader ends,
 * the follower takes over within {@code sample.leader.ttl + heartbeat}, with a greater epoch. A leader that
 * stops releases its lease; a leader whose process is killed cannot, so its lease must expire first.
 * <p>
 * The bounds carry 2 s of slack for a loaded machine: they prove that the take-over happens and does not
 * hang, not how fast it is. The measured times are printed.
 */
class LeaderTakeOverIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private static final Duration SLACK = Duration.ofSeconds(2);

    /** How long to wait for what must happen, at most: long enough to measure a take-over that is too slow. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void whenTheLeaderStopsTheFollowerTakesOverWithAGreaterEpoch() throws Exception {
        ConfigurableApplicationContext first = null;
        ConfigurableApplicationContext second = null;
        try {
            first = start();
            second = start();
            LeaderProperties settings = first.getBean(LeaderProperties.class);
            int firstPort = port(first);
            int secondPort = port(second);
            await("one of the two instances leads", () -> status(firstPort).filter(Status::leader).or(() -> status(secondPort)),
                    Status::leader);
            boolean firstLeads = status(firstPort).orElseThrow().leader();
            ConfigurableApplicationContext leader = firstLeads ? first : second;
            int leaderPort = firstLeads ? firstPort : secondPort;
            int followerPort = firstLeads ? secondPort : firstPort;
            Status before = onlyTheLeaderLeads(leaderPort, followerPort, settings.heartbeat().multipliedBy(3));

            long stopped = System.nanoTime();
            leader.close();
            Status after = await("the follower leads", () -> status(followerPort), Status::leader);
            long takeOverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            Duration bound = settings.ttl().plus(settings.heartbeat()).plus(SLACK);
            System.out.println("Take-over after the leader stopped: " + takeOverMillis + " ms (ttl " + settings.ttl()
                    + ", heartbeat " + settings.heartbeat() + ", bound " + bound.toMillis() + " ms)");
            assertThat(takeOverMillis).as("take-over after a clean stop, ms").isLessThan(bound.toMillis());
            assertThat(after.epoch()).as("the new leader's epoch").isGreaterThan(before.epoch());
            await("the relay runs on the new leader", () -> status(followerPort), (status) -> status.runs() > 0);
        }
        finally {
            close(first);
            close(second);
        }
    }

    @Test
    void whenTheLeaderProcessIsKilledTheFollowerTakesOverWithinTtlAndHeartbeat() throws Exception {
        Path log = Files.createTempFile("leader-process-", ".log");
        int processPort = freePort();
        Process process = null;
        ConfigurableApplicationContext follower = null;
        try {
            process = startProcess(processPort, log);
            Process leader = process;
            await("the process leads", () -> {
                assertThat(leader.isAlive()).as("the leader process runs; its output:%n%s", tail(log)).isTrue();
                return status(processPort);
            }, Status::leader);
            follower = start();
            LeaderProperties settings = follower.getBean(LeaderProperties.class);
            int followerPort = port(follower);
            Status before = onlyTheLeaderLeads(processPort, followerPort, settings.heartbeat().multipliedBy(3));
            assertThat(before.pid()).as("the leader's process").isEqualTo(process.pid());

            long killed = System.nanoTime();
            process.destroyForcibly(); // SIGKILL: no shutdown hook, no release; the lease must expire
            assertThat(process.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
            Status after = await("the follower leads", () -> status(followerPort), Status::leader);
            long takeOverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            Duration bound = settings.ttl().plus(settings.heartbeat()).plus(SLACK);
            System.out.println("Take-over after the leader process was killed: " + takeOverMillis + " ms (ttl "
                    + settings.ttl() + ", heartbeat " + settings.heartbeat() + ", bound " + bound.toMillis() + " ms)");
            assertThat(takeOverMillis).as("take-over after a crash, ms").isLessThan(bound.toMillis());
            assertThat(after.epoch()).as("the new leader's epoch").isGreaterThan(before.epoch());
            await("the relay runs on the new leader", () -> status(followerPort), (status) -> status.runs() > 0);
        }
        finally {
            if (process != null) {
                process.destroyForcibly();
                process.onExit().get(30, TimeUnit.SECONDS);
            }
            close(follower);
            Files.deleteIfExists(log);
        }
    }

    /**
     * Checks, over a window of several heartbeats, that the leader leads and relays while the follower does
     * neither; returns the leader's last status.
     */
    private Status onlyTheLeaderLeads(int leaderPort, int followerPort, Duration window) throws Exception {
        await("the relay runs on the leader", () -> status(leaderPort), (status) -> status.runs() > 0);
        long end = System.nanoTime() + window.toNanos();
        Status leader;
        do {
            leader = status(leaderPort).orElseThrow();
            Status follower = status(followerPort).orElseThrow();
            assertThat(leader.leader()).as("the leader leads").isTrue();
            assertThat(leader.epoch()).as("the leader's epoch").isNotNull().isPositive();
            assertThat(follower.leader()).as("the follower leads too").isFalse();
            assertThat(follower.runs()).as("runs of the relay on the follower").isZero();
            Thread.sleep(20);
        }
        while (System.nanoTime() - end < 0);
        return leader;
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0", "--redlock.nodes=" + nodes());
    }

    /** The sample in a JVM of its own, with the same settings and nodes as the in-process instances. */
    private Process startProcess(int port, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SampleApplication.class.getName(), "--server.port=" + port, "--redlock.nodes=" + nodes());
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** What {@code GET /leader} answers, or empty while nothing listens on the port. */
    private Optional<Status> status(int port) {
        try {
            HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/leader"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("GET /leader: %s", response.body()).isEqualTo(200);
            String body = response.body();
            Number pid = JsonPath.read(body, "$.pid");
            Number epoch = JsonPath.read(body, "$.epoch");
            Number runs = JsonPath.read(body, "$.runs");
            return Optional.of(new Status(JsonPath.read(body, "$.instance"), pid.longValue(), JsonPath.read(body, "$.leader"),
                    (epoch != null) ? epoch.longValue() : null, runs.longValue()));
        }
        catch (ConnectException ex) {
            return Optional.empty();
        }
        catch (IOException ex) {
            throw new IllegalStateException("GET /leader on port " + port + " failed", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking port " + port + " who leads", ex);
        }
    }

    /** Polls every 20 ms, for at most {@link #PATIENCE}, until the probe sees a status that meets the condition. */
    private static Status await(String what, Supplier<Optional<Status>> probe, Predicate<Status> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Optional<Status> seen = probe.get();
        while (seen.filter(condition).isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("%s within %s s; last seen: %s", what, PATIENCE.toSeconds(), seen)
                    .isNegative();
            Thread.sleep(20);
            seen = probe.get();
        }
        return seen.get();
    }

    private static String nodes() {
        return String.join(",", redis.uris());
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void close(ConfigurableApplicationContext context) {
        if (context != null) {
            context.close();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
        catch (IOException ex) {
            return "(unreadable: " + ex + ")";
        }
    }

}
