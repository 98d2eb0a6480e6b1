package io.github.redlock.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.sample.prices.PriceList;
import io.github.redlock.sample.settlement.Settlement;
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
 * The sample application over HTTP, on five real local nodes. Every test expects its acquisitions to succeed unless
 * another holder has the lock, so the nodes get a patient timeout: with the sample's 50 ms, a loaded machine's slow
 * answers refused the test's own lock (three of five nodes "timed out after 50 ms") in a clean-clone run beside another.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "redlock.node-timeout=1s")
class SampleApplicationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

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
    private Settlement settlement;

    @Autowired
    private PriceList prices;

    @Test
    void fiftyConcurrentPaymentsOfOneOrderChargeItOnce() throws Exception {
        HttpResponse<String> response = post("/demo/contention?payments=50");
        assertThat(response.statusCode()).isEqualTo(200);
        String body = response.body();
        assertThat((Integer) JsonPath.read(body, "$.charges")).isEqualTo(1);
        assertThat((Integer) JsonPath.read(body, "$.charged")).isEqualTo(1);
        int repeated = JsonPath.read(body, "$.repeated");
        int refused = JsonPath.read(body, "$.refused");
        assertThat(repeated + refused).isEqualTo(49);
        assertThat(((Number) JsonPath.read(body, "$.lock.acquired")).intValue()).isEqualTo(1 + repeated);
        assertThat(((Number) JsonPath.read(body, "$.lock.failed")).intValue()).isEqualTo(refused);

        String metrics = get("/actuator/metrics/redlock.acquire?tag=lock:order:%23%7B%23orderId%7D").body();
        assertThat(((Number) JsonPath.read(metrics, "$.measurements[0].value")).intValue()).isGreaterThanOrEqualTo(50);
        assertThat(get("/actuator/prometheus").body()).contains("redlock_acquire_seconds_count{", "lock=\"order:#{#orderId}\"");
    }

    @Test
    void healthReportsTheQuorumOfNodes() throws Exception {
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(health.body(), "$.components.redlock.status")).isEqualTo("UP");
        assertThat((Integer) JsonPath.read(health.body(), "$.components.redlock.details.reachable")).isEqualTo(5);
    }

    @Test
    void aPaymentWaitingTooLongIsAConflictThatNamesTheLock() throws Exception {
        RedlockLease elsewhere = this.redlock.acquire("order:held", Duration.ofSeconds(30), Duration.ZERO);
        try {
            HttpResponse<String> response = post("/orders/held/pay");
            assertThat(response.statusCode()).isEqualTo(409);
            assertThat((String) JsonPath.read(response.body(), "$.key")).isEqualTo("order:held");
            assertThat((Integer) JsonPath.read(response.body(), "$.quorum")).isEqualTo(3);
        }
        finally {
            elsewhere.release();
        }
        assertThat(post("/orders/held/pay").statusCode()).isEqualTo(200);
        assertThat((Boolean) JsonPath.read(post("/orders/held/pay").body(), "$.repeated")).isTrue();
    }

    @Test
    void aSecondRebuildWhileOneRunsIsRefused() throws Exception {
        assertThat(post("/catalog/rebuild?seconds=2").statusCode()).isEqualTo(202);
        assertThat(post("/catalog/rebuild?seconds=2").statusCode()).isEqualTo(409);
    }

    @Test
    void theSettlementIsSkippedWhileAnotherInstanceHoldsIt() throws Exception {
        RedlockLease otherInstance = this.redlock.acquire("nightly-settlement", Duration.ofSeconds(30), Duration.ZERO);
        try {
            assertThat(this.settlement.settle()).isEmpty();
            assertThat(post("/settlement").body()).contains("skipped");
        }
        finally {
            otherInstance.release();
        }
        assertThat(this.settlement.settle()).isPresent();
    }

    @Test
    void readersNeverSeeAHalfReplacedPriceList() throws Exception {
        this.prices.replace(Map.of("a", 50L, "b", 50L, "c", 50L, "d", 50L));
        CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
            for (int version = 0; version < 5; version++) {
                long price = 100 * (version + 1);
                this.prices.replace(Map.of("a", price, "b", price, "c", price, "d", price));
            }
        });
        while (!writes.isDone()) {
            Map<String, Long> quote = this.prices.quote().prices();
            assertThat(quote).as("one whole price list version").hasSize(4);
            assertThat(quote.values().stream().distinct().count()).as("one price list version: %s", quote).isEqualTo(1);
        }
        writes.get();
        assertThat(this.prices.quote().prices()).containsOnlyKeys("a", "b", "c", "d");
    }

    @Test
    void badInputIsABadRequestThatSaysWhy() throws Exception {
        HttpResponse<String> response = post("/demo/contention?payments=0");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("payments must be between 1 and 200");
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

}
