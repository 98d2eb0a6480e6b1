package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.DatabaseServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos runs with client processes on real nodes, each a fleet: one process runs with a short max-ttl beside
 * processes with the long one. The first is the smoke run of every build (every fault under which the lock must
 * stay safe, every protection on; {@code -Pchaos} makes it the full run); the controls turn one protection off
 * under the fault it protects against, and expect the checker to find the hazard: a checker that never finds
 * anything proves nothing. The durable-restart control has its twin with the quarantine on, which must find nothing. The
 * storage is a real PostgreSQL where it is installed, whose fence ({@code JdbcFence}) refuses stale holders' writes in
 * the smoke run; its control turns the fence off.
 */
class ChaosRunIntegrationTests {

    @Test
    void aRunWithEveryFaultUnderWhichTheLockMustStaySafeFindsNoViolation() throws Exception {
        ChaosOptions options = ChaosOptions.fromSystemProperties(30).in(Path.of("target/chaos/all-faults"));
        CheckReport report = ChaosRun.run(options);
        System.out.println(report.text());
        assertThat(report.operations()).as("operations").isPositive();
        assertThat(report.run().storage()).as("PostgreSQL where it is installed, its fence on")
            .startsWith(DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent() ? "PostgreSQL " : "redis-server").endsWith("fence on");
        assertThat(report.hasViolations()).as(report.text()).isFalse();
    }

    @Test
    void withoutTheRestartQuarantineARollingRestartGrantsALockTwice() throws Exception {
        // Every hold long: a rolling restart then lands while locks are held.
        CheckReport report = ChaosRun.run(control(EnumSet.of(FaultKind.ROLLING_RESTART), EnumSet.allOf(History.Kind.class), 1.0,
                RestartQuarantine.NEVER, true, 15, "no-quarantine"));
        System.out.println(report.text());
        assertThat(report.violations(Violation.Kind.OVERLAP)).as(report.text()).isPositive();
    }

    @Test
    void withoutTheRestartQuarantineNodesRestartedEmptyUnderADurableConfigurationGrantALockTwice() throws Exception {
        // Their configuration says they log every write, but they came back without the keys: the restart hazard.
        CheckReport report = ChaosRun.run(control(EnumSet.of(FaultKind.DURABLE_EMPTY_RESTART), EnumSet.allOf(History.Kind.class), 1.0,
                RestartQuarantine.NEVER, true, 15, "durable-empty-no-quarantine"));
        System.out.println(report.text());
        assertThat(report.violations(Violation.Kind.OVERLAP)).as(report.text()).isPositive();
    }

    @Test
    void theRestartQuarantineKeepsNodesRestartedEmptyUnderADurableConfigurationFromVotingTooSoon() throws Exception {
        // The control above with the quarantine on. Before the kept-data marker, when a durable configuration was taken
        // as proof that a node kept its keys, this run found 4 overlaps (seed 1).
        CheckReport report = ChaosRun.run(control(EnumSet.of(FaultKind.DURABLE_EMPTY_RESTART), EnumSet.allOf(History.Kind.class), 1.0,
                RestartQuarantine.AUTO, true, 15, "durable-empty"));
        System.out.println(report.text());
        assertThat(report.grantCount()).as("grants").isPositive();
        assertThat(report.faults()).as("faults").containsKey(FaultKind.DURABLE_EMPTY_RESTART);
        assertThat(report.hasViolations()).as(report.text()).isFalse();
    }

    @Test
    void withoutTheStoragesFenceAPausedHoldersStaleWritesAreAccepted() throws Exception {
        // Fenced locks only, every holder with its token: a paused client then holds some, and the storage (PostgreSQL)
        // commits its writes without calling JdbcFence.advance. About seven pauses in 25 s; with half the holds long, a
        // paused client is likely in the middle of one (8 to 12 stale writes accepted per run, in six runs). The smoke
        // run above is the twin with the fence on (client pauses among its faults), which must accept none.
        Capabilities.assume(Capabilities.POSTGRESQL, DatabaseServer.find(DatabaseServer.Kind.POSTGRESQL).isPresent(),
                "PostgreSQL is not installed (apt-get install postgresql): the control of the chaos run's storage fence is skipped");
        CheckReport report = ChaosRun.run(control(EnumSet.of(FaultKind.CLIENT_PAUSE), EnumSet.of(History.Kind.FENCED),
                0.5, RestartQuarantine.AUTO, true, 25, "no-storage-fence").withStorageFence(false));
        System.out.println(report.text());
        assertThat(report.run().storage()).startsWith("PostgreSQL ").endsWith("fence OFF");
        assertThat(report.staleFencedWritesAccepted()).as(report.text()).isPositive();
        assertThat(report.fencedWritesRefused()).as("nothing refused without the fence").isZero();
    }

    /**
     * A control: 3 clients of 4 threads, one of them with the short max-ttl (a fleet, as in every run), and one kind of
     * fault, with the run's seed (random unless {@code chaos.seed}).
     */
    private static ChaosOptions control(EnumSet<FaultKind> faults, EnumSet<History.Kind> kinds, double longHolds,
            RestartQuarantine quarantine, boolean fencing, long faultSeconds, String name) {
        ChaosOptions defaults = ChaosOptions.fromSystemProperties(faultSeconds);
        return new ChaosOptions(defaults.seed(), 3, 4, 1, faultSeconds, faults, kinds, longHolds, quarantine, fencing,
                Path.of("target/chaos/" + name));
    }

}
