package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short run of the cost tool on real nodes, so that it keeps working: every operation is measured and succeeds, the
 * commands it counts are the lock's (a lock and its release reach every node, a script's commands are not counted as
 * the client's), and the throughput window yields a capacity.
 */
class CommandCostsIntegrationTests {

    private static CommandCosts.Report report;

    @BeforeAll
    static void measure() throws InterruptedException {
        report = CommandCosts.measure(new CommandCosts.Settings(100, Duration.ofSeconds(1), 8));
    }

    @Test
    void everyOperationIsMeasuredAndSucceeds() {
        assertThat(report.operations()).extracting(OperationCost::name).containsExactly("exclusive", "fenced exclusive", "read",
                "write", "multi-key (3 keys)", "extension", "contended, 1 client", "contended, 2 clients");
        assertThat(report.operations()).allSatisfy((cost) -> {
            // A single attempt may time out on a loaded machine (50 ms per node), rarely: 1 in 5,000 on 2 busy cores.
            assertThat(cost.succeeded()).as(cost.name()).isGreaterThanOrEqualTo(cost.operations() * 9 / 10);
            assertThat(cost.mainThreadMicros()).as(cost.name()).isPositive();
            assertThat(cost.commandMicros()).as(cost.name()).isPositive();
            assertThat(cost.inputBytes()).as(cost.name()).isPositive();
            assertThat(cost.outputBytes()).as(cost.name()).isPositive();
        });
        assertThat(report.redisVersion()).matches("\\d+\\.\\d+\\.\\d+");
    }

    @Test
    void aLockAndItsReleaseEachSendOneCommandToEveryNode() {
        Map<String, Double> exclusive = cost("exclusive").clientCommands();
        assertThat(exclusive.values().stream().mapToDouble(Double::doubleValue).sum()).isBetween(1.9, 2.1);
        assertThat(cost("extension").clientCommands().values().stream().mapToDouble(Double::doubleValue).sum()).isBetween(0.9, 1.1);
    }

    @Test
    void commandsThatScriptsRunAreNotCountedAsTheClients() {
        assertThat(cost("exclusive").clientCommands()).containsKey("evalsha").doesNotContainKeys("get", "del");
        assertThat(cost("exclusive").scriptCommands()).isNotEmpty();
        double fencedScripts = cost("fenced exclusive").scriptCommands().values().stream().mapToDouble(Double::doubleValue).sum();
        double plainScripts = cost("exclusive").scriptCommands().values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(fencedScripts).isGreaterThan(plainScripts);
    }

    @Test
    void theThroughputWindowsGiveLocksPerCore() {
        assertThat(report.windows()).hasSize(2).allSatisfy((window) -> {
            assertThat(window.operations()).as(window.name()).isPositive();
            assertThat(CostTable.locksPerCore(window)).as(window.name()).isPositive();
        });
        assertThat(CostTable.markdown(report)).contains("| exclusive, 8 threads, 1 client (", "| exclusive, 8 threads in 8 clients (",
                "locks/s per Redis core", "a standalone node carries", "| contended, 2 clients |");
    }

    private static OperationCost cost(String name) {
        return report.operations().stream().filter((cost) -> cost.name().equals(name)).findFirst().orElseThrow();
    }

}
