package io.github.redlock.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in a web application with Actuator, against five real nodes, seen over HTTP.
 */
@SpringBootTest(classes = RedlockActuatorIntegrationTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // Quarantine off: these tests kill and restart nodes and check that health follows at once; the quarantine's
        // own effect on health is RedlockQuarantineHealthIntegrationTests'.
        properties = { "redlock.restart-quarantine=never", "management.endpoints.web.exposure.include=health,metrics,redlock",
                "management.endpoint.health.show-details=always" })
class RedlockActuatorIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @DynamicPropertySource
    static void nodes(DynamicPropertyRegistry registry) {
        registry.add("redlock.nodes", () -> String.join(",", redis.uris()));
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Autowired
    private Environment environment;

    @Autowired
    private Accounts accounts;

    @Autowired
    private Redlock redlock;

    @Autowired
    private MeterRegistry registry;

    @Test
    void metricsAreRecordedPerKeyTemplateWithTheOutcomeOfEachNode() throws Exception {
        this.accounts.debit("a-1");
        this.accounts.debit("a-2");
        RedlockLease other = this.redlock.acquire("settle:a-3", Duration.ofSeconds(10), Duration.ZERO);
        assertThat(this.accounts.settle("a-3")).isNull(); // SKIP: counted as failed
        other.release();

        assertThat(this.registry.get("redlock.acquire").tags("lock", "account:#{#id}", "outcome", "acquired").timer().count())
                .isEqualTo(2);
        assertThat(this.registry.get("redlock.acquire").tags("lock", "settle:#{#id}", "outcome", "failed").timer().count())
                .isEqualTo(1);
        assertThat(this.registry.find("redlock.acquire").tags("lock", "account:#{#id}", "outcome", "failed").timer()).isNull();
        assertThat(this.registry.get("redlock.release").tag("outcome", "released").timer().count()).isGreaterThanOrEqualTo(3);
        assertThat(this.registry.get("redlock.node.command").tags("node", redis.node(0).hostAndPort(), "command", "set",
                "outcome", "ok").timer().count()).isGreaterThanOrEqualTo(3);
        assertThat(this.registry.get("redlock.held").tag("lock", "account:#{#id}").longTaskTimer().activeTasks()).isZero();
        assertThat(this.registry.find("redlock.acquire").tag("lock", "account:a-1").timers()).isEmpty();

        HttpResponse<String> acquire = get("/actuator/metrics/redlock.acquire");
        System.out.println("GET /actuator/metrics/redlock.acquire -> " + acquire.statusCode() + " " + acquire.body());
        assertThat(acquire.statusCode()).isEqualTo(200);
        List<String> locks = JsonPath.read(acquire.body(), "$.availableTags[?(@.tag == 'lock')].values[*]");
        assertThat(locks).containsExactlyInAnyOrder("account:#{#id}", "settle:#{#id}");
    }

    @Test
    void healthIsUpWhileAQuorumAnswers() throws Exception {
        HttpResponse<String> up = get("/actuator/health/redlock");
        System.out.println("GET /actuator/health/redlock -> " + up.statusCode() + " " + up.body());
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(up.body(), "$.status")).isEqualTo("UP");
        assertThat((Integer) JsonPath.read(up.body(), "$.details.reachable")).isEqualTo(5);

        redis.node(4).pause();
        long start = System.nanoTime();
        HttpResponse<String> frozen = get("/actuator/health/redlock");
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("GET /actuator/health/redlock (1 node paused) -> " + frozen.statusCode() + " in " + elapsedMillis
                + " ms " + frozen.body());
        assertThat(frozen.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(frozen.body(), "$.details.nodes['" + redis.node(4).hostAndPort() + "']"))
                .startsWith("DOWN");
        assertThat(elapsedMillis).as("a frozen node costs its timeout, not a hang").isLessThan(3_000);
        redis.node(4).resume();
    }

    @Test
    void healthIsDownWithoutAQuorum() throws Exception {
        try {
            redis.node(0).kill();
            redis.node(1).kill();
            redis.node(2).kill();
            HttpResponse<String> down = get("/actuator/health/redlock");
            System.out.println("GET /actuator/health/redlock (3 of 5 nodes killed) -> " + down.statusCode() + " " + down.body());
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat((String) JsonPath.read(down.body(), "$.status")).isEqualTo("DOWN");
            assertThat((String) JsonPath.read(down.body(), "$.details.nodes['" + redis.node(0).hostAndPort() + "']")).startsWith("DOWN");
            assertThat((String) JsonPath.read(down.body(), "$.details.nodes['" + redis.node(4).hostAndPort() + "']")).isEqualTo("UP");
        }
        finally {
            restartKilledNodesUntilAllAreReachable();
        }
    }

    @Test
    void healthRecoversByItself() throws Exception {
        try {
            redis.node(0).kill();
            redis.node(1).kill();
            redis.node(2).kill();
            assertThat(get("/actuator/health/redlock").statusCode()).isEqualTo(503);

            redis.node(0).restart();
            redis.node(1).restart();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                Thread.sleep(100);
                status = get("/actuator/health/redlock").statusCode();
            }
            assertThat(status).as("health back to UP after nodes returned").isEqualTo(200);
        }
        finally {
            restartKilledNodesUntilAllAreReachable();
        }
    }

    /**
     * Restarts the nodes a test killed and waits until the shared application reaches all five again, both for
     * its health and for its locks, so that the next test starts from healthy nodes whatever the order of the tests.
     */
    private void restartKilledNodesUntilAllAreReachable() throws Exception {
        for (RedisNode node : redis.nodes().nodes()) {
            if (!node.isRunning()) {
                node.restart();
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int reachable = 0;
        boolean voting = false;
        // Voting, not only connected: a node votes once the lock has checked it after its restart, and a test that
        // follows counts each node's SETs.
        while ((reachable != 5 || !voting) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            reachable = JsonPath.read(get("/actuator/health/redlock").body(), "$.details.reachable");
            voting = this.redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP);
        }
        assertThat(reachable).as("nodes the health reaches again").isEqualTo(5);
        assertThat(voting).as("every node votes again: " + this.redlock.nodeStatuses()).isTrue();
    }

    @Test
    void endpointListsTheNodes() throws Exception {
        HttpResponse<String> response = get("/actuator/redlock");
        System.out.println("GET /actuator/redlock -> " + response.statusCode() + " " + response.body());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(response.body(), "$.quorum")).isEqualTo(3);
        List<String> nodes = JsonPath.read(response.body(), "$.nodes[*].node");
        assertThat(nodes).containsExactlyElementsOf(redis.nodes().nodes().stream().map((node) -> node.hostAndPort()).toList());
        List<String> votes = JsonPath.read(response.body(), "$.nodes[*].vote");
        assertThat(votes).containsOnly("UP");
    }

    @Test
    void endpointListsTheLeasesThisInstanceHolds() throws Exception {
        RedlockLease lease = this.redlock.acquire("report", Duration.ofSeconds(30), Duration.ZERO);
        HttpResponse<String> response = get("/actuator/redlock");
        System.out.println("GET /actuator/redlock -> " + response.statusCode() + " " + response.body());
        lease.release();
        assertThat(response.statusCode()).isEqualTo(200);
        List<String> keys = JsonPath.read(response.body(), "$.leases[*].key");
        assertThat(keys).containsExactly("report");
        assertThat(((Number) JsonPath.read(response.body(), "$.leases[0].remainingValidityMillis")).longValue())
                .isBetween(20_000L, 30_000L);
    }

    @Test
    void endpointShowsWhoHoldsALockWhicheverInstanceHoldsIt() throws Exception {
        try (Redlock billing = Redlock.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(2)).instanceId("billing@host-9:77").build()) {
            RedlockLease invoice = billing.acquire("invoice", Duration.ofSeconds(30), Duration.ZERO);
            HttpResponse<String> response = get("/actuator/redlock/locks/invoice");
            System.out.println("GET /actuator/redlock/locks/invoice -> " + response.statusCode() + " " + response.body());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat((Boolean) JsonPath.read(response.body(), "$.held")).isTrue();
            assertThat((String) JsonPath.read(response.body(), "$.holder")).isEqualTo("billing@host-9:77");
            List<String> states = JsonPath.read(response.body(), "$.nodes[*].state");
            assertThat(states).hasSize(5).containsOnly("HELD");
            List<String> kinds = JsonPath.read(response.body(), "$.nodes[*].kind");
            assertThat(kinds).containsOnly("EXCLUSIVE");
            assertThat(((Number) JsonPath.read(response.body(), "$.nodes[0].remainingMillis")).longValue()).isBetween(1L, 30_000L);
            invoice.release();
        }
        RedlockLease own = this.redlock.acquire("statement", Duration.ofSeconds(30), Duration.ZERO);
        String holder = JsonPath.read(get("/actuator/redlock/locks/statement").body(), "$.holder");
        assertThat(holder).as("this instance's default id: host:pid without spring.application.name")
                .endsWith(":" + ProcessHandle.current().pid()).doesNotContain("@");
        own.release();
        HttpResponse<String> free = get("/actuator/redlock/locks/nobody-holds-this");
        assertThat((Boolean) JsonPath.read(free.body(), "$.held")).isFalse();
        List<String> freeStates = JsonPath.read(free.body(), "$.nodes[*].state");
        assertThat(freeStates).containsOnly("FREE");
        assertThat(get("/actuator/redlock/other/invoice").statusCode()).isEqualTo(404);
    }

    private HttpResponse<String> get(String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + this.environment.getProperty("local.server.port") + path);
        return this.http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        /** Spring Security is on the test classpath (for the revoke's tests): these tests are about the answers, not who may ask. */
        @Bean
        SecurityFilterChain openActuator(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).build();
        }

    }

    static class Accounts {

        @Redlocked(key = "account:#{#id}", ttl = "10s")
        public void debit(String id) {
        }

        @Redlocked(key = "settle:#{#id}", ttl = "10s", onFailure = io.github.redlock.annotation.OnFailure.SKIP)
        public String settle(String id) {
            return "settled";
        }

    }

}
