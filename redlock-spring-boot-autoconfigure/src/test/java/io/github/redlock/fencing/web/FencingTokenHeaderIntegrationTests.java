package io.github.redlock.fencing.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fencing token over HTTP, in a real web server with three real lock nodes and a database: the {@code RestClient}
 * and {@code WebClient} of Spring Boot's builders send the token of a {@code @Redlocked} method's lease, and a
 * downstream service's {@link FencingTokenHandlerInterceptor} makes its transactions refuse a caller that a later
 * holder's request overtook. The hazard, shown by the control path without the interceptor: a request that read the
 * stock, paused, and wrote after a later holder's request committed, overwrites it.
 */
@SpringBootTest(classes = FencingTokenHeaderIntegrationTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "redlock.restart-quarantine=never", "redlock.fencing=true", "redlock.node-timeout=2s",
                "spring.datasource.generate-unique-name=true", "spring.web.error.include-message=always" })
class FencingTokenHeaderIntegrationTests {

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
    private Caller caller;

    @Autowired
    private Stock stock;

    @Autowired
    private Redlock redlock;

    @Autowired
    private JdbcFence fence;

    @Test
    void theClientsOfBootsBuildersSendTheTokenOfTheCurrentLeaseAndNothingWithoutOne() {
        Caller.Sent rest = this.caller.viaRestClient(base());
        assertThat(rest.received()).isEqualTo(Long.toString(rest.token()));
        Caller.Sent web = this.caller.viaWebClient(base());
        assertThat(web.received()).isEqualTo(Long.toString(web.token()));
        assertThat(web.token()).isGreaterThan(rest.token());
        assertThat(this.caller.withoutLease(base())).isEqualTo("none");
    }

    @Test
    void aRequestWithoutATokenOrWithABadOneOrBelowTheFenceIsRefusedBeforeItsHandlerRuns() throws Exception {
        this.stock.add("sku-1", 10);
        assertThat(post("/inventory/sku-1", null).statusCode()).isEqualTo(428);
        assertThat(post("/inventory/sku-1", "twelve").statusCode()).isEqualTo(400);
        assertThat(post("/inventory/sku-1", "0").statusCode()).isEqualTo(400);
        long token = token();
        assertThat(post("/inventory/sku-1", Long.toString(token)).statusCode()).isEqualTo(200);
        HttpResponse<String> stale = post("/inventory/sku-1", Long.toString(token - 1));
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(stale.body()).contains("Refused a stale write to 'inventory'");
        assertThat(this.stock.count("sku-1")).as("one take of the four requests").isEqualTo(9);
        assertThat(this.fence.fence("inventory")).isEqualTo(token);
    }

    @Test
    void aFencedMethodCalledByAFencedRequestChecksBothFencesInItsTransaction() throws Exception {
        this.stock.add("sku-4", 10);
        long token = token();
        assertThat(post("/inventory/sku-4/fenced", Long.toString(token)).statusCode()).isEqualTo(200);
        assertThat(this.fence.fence("inventory")).as("the request's fence, checked in the method's transaction").isEqualTo(token);
        assertThat(this.fence.fence("stock:sku-4")).as("the method's own fence").isPositive();
        assertThat(post("/inventory/sku-4/fenced", Long.toString(token - 1)).statusCode()).as("a stale request").isEqualTo(409);
        assertThat(this.stock.count("sku-4")).isEqualTo(9);
    }

    @Test
    void aRequestThatPausedInItsTransactionWhileALaterHoldersRequestCommittedFailsAtItsCommit() throws Exception {
        assertThat(race("/inventory/sku-2", "sku-2")).as("the paused request's status").isEqualTo(409);
        assertThat(this.stock.count("sku-2")).as("only the later request's take is in the table").isEqualTo(9);
        assertThat(this.stock.writer("sku-2")).isEqualTo("later");
    }

    @Test
    void withoutTheInterceptorThePausedRequestsWriteLands() throws Exception {
        assertThat(race("/unfenced/sku-3", "sku-3")).as("the paused request's status").isEqualTo(200);
        assertThat(this.stock.count("sku-3")).as("the hazard: the later request's take is lost").isEqualTo(9);
        assertThat(this.stock.writer("sku-3")).isEqualTo("paused");
    }

    /**
     * The earlier holder's request reads the stock (10) and pauses in its transaction; the later holder's request takes
     * one and commits (9); the earlier one resumes and writes its take over it (9, by "paused").
     * @return the status of the earlier holder's request
     */
    private int race(String path, String sku) throws Exception {
        this.stock.add(sku, 10);
        long earlier = token();
        long later = token();
        this.stock.pauseAfterRead();
        CompletableFuture<HttpResponse<String>> paused = this.http.sendAsync(request(path + "?writer=paused", Long.toString(earlier)),
                HttpResponse.BodyHandlers.ofString());
        this.stock.awaitRead();
        this.stock.noPause();
        assertThat(post(path + "?writer=later", Long.toString(later)).statusCode()).isEqualTo(200);
        this.stock.resume();
        return paused.get(30, TimeUnit.SECONDS).statusCode();
    }

    /** A fencing token of a real lease on the nodes, released at once. */
    private long token() {
        RedlockLease lease = this.redlock.acquire("inventory", Duration.ofSeconds(10), Duration.ofSeconds(5));
        long token = lease.fencingToken();
        lease.release();
        return token;
    }

    private String base() {
        return "http://localhost:" + this.port;
    }

    private HttpResponse<String> post(String path, String token) throws Exception {
        return this.http.send(request(path, token), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base() + path)).POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30));
        if (token != null) {
            builder.header(FencingTokenHeader.NAME, token);
        }
        return builder.build();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Stock stock(JdbcTemplate jdbc) {
            return new Stock(jdbc);
        }

        @Bean
        Caller caller(RestClient.Builder restClients, WebClient.Builder webClients) {
            return new Caller(restClients.build(), webClients.build());
        }

        @Bean
        InventoryController inventoryController(Stock stock) {
            return new InventoryController(stock);
        }

        /** Spring Security is on this module's test classpath: let every request through, as a service behind a gateway. */
        @Bean
        SecurityFilterChain openToAll(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).csrf((csrf) -> csrf.disable()).build();
        }

        @Bean
        WebMvcConfigurer fencedInventory(JdbcFence fence) {
            return new WebMvcConfigurer() {

                @Override
                public void addInterceptors(InterceptorRegistry registry) {
                    registry.addInterceptor(new FencingTokenHandlerInterceptor(fence, "inventory")).addPathPatterns("/inventory/**");
                }

            };
        }

    }

    @RestController
    static class InventoryController {

        private final Stock stock;

        InventoryController(Stock stock) {
            this.stock = stock;
        }

        @PostMapping("/inventory/{sku}")
        String take(@PathVariable String sku, @RequestParam(defaultValue = "caller") String writer) {
            this.stock.take(sku, writer);
            return "taken";
        }

        @PostMapping("/inventory/{sku}/fenced")
        String takeFenced(@PathVariable String sku) {
            this.stock.takeFenced(sku);
            return "taken";
        }

        @PostMapping("/unfenced/{sku}")
        String takeUnfenced(@PathVariable String sku, @RequestParam(defaultValue = "caller") String writer) {
            this.stock.take(sku, writer);
            return "taken";
        }

        @PostMapping("/echo")
        String echo(@RequestHeader(name = FencingTokenHeader.NAME, required = false) String token) {
            return (token != null) ? token : "none";
        }

    }

    /** A stock table: a take reads the count, pauses there when asked to, and writes it back less one. */
    @Service
    static class Stock {

        private final JdbcTemplate jdbc;

        private volatile CountDownLatch read = new CountDownLatch(0);

        private volatile CountDownLatch resume = new CountDownLatch(0);

        /** What the paused take waits for. */
        private volatile CountDownLatch paused = new CountDownLatch(0);

        Stock(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
            jdbc.execute("CREATE TABLE IF NOT EXISTS stock (sku VARCHAR(32) PRIMARY KEY, items INT NOT NULL, writer VARCHAR(16))");
        }

        @Transactional
        public void take(String sku, String writer) {
            int items = count(sku);
            CountDownLatch resume = this.resume;
            this.read.countDown();
            await(resume);
            this.jdbc.update("UPDATE stock SET items = ?, writer = ? WHERE sku = ?", items - 1, writer, sku);
        }

        @Redlocked(key = "stock:#{#sku}", ttl = "10s", fenced = true)
        @Transactional
        public void takeFenced(String sku) {
            take(sku, "fenced");
        }

        public void add(String sku, int items) {
            this.jdbc.update("INSERT INTO stock (sku, items) VALUES (?, ?)", sku, items);
        }

        public int count(String sku) {
            return this.jdbc.queryForObject("SELECT items FROM stock WHERE sku = ?", Integer.class, sku);
        }

        public String writer(String sku) {
            return this.jdbc.queryForObject("SELECT writer FROM stock WHERE sku = ?", String.class, sku);
        }

        public void pauseAfterRead() {
            this.read = new CountDownLatch(1);
            this.resume = new CountDownLatch(1);
        }

        public void awaitRead() {
            await(this.read);
        }

        /** Lets later takes run through, while the paused one still waits for {@link #resume()}. */
        public void noPause() {
            this.paused = this.resume;
            this.read = new CountDownLatch(0);
            this.resume = new CountDownLatch(0);
        }

        public void resume() {
            this.paused.countDown();
        }

        private static void await(CountDownLatch latch) {
            try {
                assertThat(latch.await(30, TimeUnit.SECONDS)).as("the test's next step within 30 s").isTrue();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }

    }

    /** Calls the echo endpoint from a locked method with each client, and without a lock. */
    static class Caller {

        private final RestClient rest;

        private final WebClient web;

        Caller(RestClient rest, WebClient web) {
            this.rest = rest;
            this.web = web;
        }

        @Redlocked(key = "downstream", ttl = "10s")
        public Sent viaRestClient(String base) {
            long token = RedlockContext.currentLease().orElseThrow().fencingToken();
            return new Sent(token, this.rest.post().uri(base + "/echo").retrieve().body(String.class));
        }

        @Redlocked(key = "downstream", ttl = "10s")
        public Sent viaWebClient(String base) {
            long token = RedlockContext.currentLease().orElseThrow().fencingToken();
            return new Sent(token, this.web.post().uri(base + "/echo").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)));
        }

        public String withoutLease(String base) {
            return this.rest.post().uri(base + "/echo").retrieve().body(String.class);
        }

        record Sent(long token, String received) {
        }

    }

}
