package io.github.redlock.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.sample.ledger.Balance;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;
import io.github.redlock.sample.ledger.Ledger;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ledger's fencing, on five real local nodes and a real (H2) database. The hazard: a holder that pauses
 * between its read and its write, past the end of its lease, while another holder takes the lock and writes,
 * would write a balance computed from a stale read over the other's. The lock cannot prevent it; the database,
 * advancing the account's fence in the fenced transaction ({@code @Redlocked(fenced = true)}), refuses its commit.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext // its nodes stop with the class: close the context with them rather than keep it cached
class SampleFencingIntegrationTests {

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
    private Ledger ledger;

    @Autowired
    private JdbcFence fence;

    @Autowired
    private PlatformTransactionManager transactionManager;

    @Test
    void theDatabaseRefusesTheWriteOfAHolderThatPausedPastItsLease() throws Exception {
        HttpResponse<String> response = post("/demo/fencing");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String body = response.body();
        long aToken = ((Number) JsonPath.read(body, "$.holderA.token")).longValue();
        long bToken = ((Number) JsonPath.read(body, "$.holderB.token")).longValue();
        // The hazard is real: both computed their balance from the same read, and A wrote after B.
        assertThat(((Number) JsonPath.read(body, "$.holderA.read")).longValue())
                .isEqualTo(((Number) JsonPath.read(body, "$.holderB.read")).longValue());
        assertThat((Boolean) JsonPath.read(body, "$.pause.leaseValidAfter")).as("A's lease after its pause").isFalse();
        assertThat(((Number) JsonPath.read(body, "$.pause.millis")).longValue())
                .isGreaterThanOrEqualTo(((Number) JsonPath.read(body, "$.pause.leaseLeftMillis")).longValue());
        assertThat((Boolean) JsonPath.read(body, "$.holderB.accepted")).as("B's write").isTrue();
        assertThat((Boolean) JsonPath.read(body, "$.holderA.accepted")).as("A's stale write").isFalse();
        assertThat(aToken).isLessThan(bToken);
        assertThat(((Number) JsonPath.read(body, "$.balance.fence")).longValue()).isEqualTo(bToken);
        assertThat(((Number) JsonPath.read(body, "$.balance.amount")).longValue())
                .isEqualTo(((Number) JsonPath.read(body, "$.holderB.wrote")).longValue());
    }

    @Test
    void fencedChangesInSequenceAreAllAcceptedWithRisingTokens() {
        this.ledger.open("sequence", 0);
        List<Ledger.Write> writes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            writes.add(this.ledger.change("sequence", (amount) -> amount + 10));
        }
        assertThat(writes).allSatisfy((write) -> assertThat(write.accepted()).isTrue());
        assertThat(writes).extracting(Ledger.Write::token).isSorted().doesNotHaveDuplicates();
        assertThat(writes.get(0).token()).isPositive();
        assertThat(this.ledger.balance("sequence"))
                .contains(new Balance("sequence", 50, writes.get(writes.size() - 1).token()));
    }

    @Test
    void theFenceRefusesATokenBelowIt() {
        TransactionTemplate transactions = new TransactionTemplate(this.transactionManager);
        transactions.executeWithoutResult((status) -> this.fence.advance("account:fenced", 7));
        transactions.executeWithoutResult((status) -> this.fence.advance("account:fenced", 7)); // the same holder again
        assertThatExceptionOfType(StaleFencingTokenException.class)
                .isThrownBy(() -> transactions.executeWithoutResult((status) -> this.fence.advance("account:fenced", 6)))
                .withMessageContaining("'account:fenced'");
        assertThat(this.fence.fence("account:fenced")).isEqualTo(7);
    }

    @Test
    void changingAnAccountThatDoesNotExistSaysSo() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.change("missing", (amount) -> amount + 1))
                .withMessage("No account 'missing': open it first");
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

}
