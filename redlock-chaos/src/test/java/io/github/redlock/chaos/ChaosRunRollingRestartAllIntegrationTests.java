package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;

import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos runs of {@link FaultKind#ROLLING_RESTART_ALL} with a leader election ({@link LeaderCandidate}): every client
 * process runs for leader, one leads with a lease extended automatically, the others keep asking for the leader lock,
 * while all five nodes are restarted empty one after another, each once every client counts the one before again. The
 * hazard: a lease written once at its grant loses each restarted node for good, so after the third restart of five no
 * extension reaches a quorum and the leader loses its lease, although every node is up and no node was ever out beside
 * another. The core repairs a long lease on a node that restarted empty and votes again; the control runs the client
 * processes without repairs ({@code redlock.internal.no-lease-repairs}) and must see the leader lose its lease, at the
 * third restart at the earliest.
 * <p>
 * About 47 s each on two cores (one fault of some 30 s: five quarantines and the waits after them), so they run with
 * {@code -Dchaos.rollingRestarts=true} or the {@code chaos} profile, as the failover runs do; the always-on proof of the
 * same hazard with one client is redlock-core's {@code RedlockLeaseRepairIntegrationTests}.
 */
@EnabledIfSystemProperty(named = "chaos.rollingRestarts", matches = "true",
        disabledReason = "95 s: run with -Dchaos.rollingRestarts=true or -Pchaos")
class ChaosRunRollingRestartAllIntegrationTests {

    @Test
    void aLeaderKeepsItsLeaseWhileEveryNodeRestartsEmptyOneAfterAnother() throws Exception {
        ChaosOptions options = rollingRestartAllRun(true, "rolling-restart-all");
        CheckReport report = ChaosRun.run(options);
        System.out.println(report.text());
        Leadership leadership = report.leadership();
        assertThat(restarts(options)).as("nodes restarted").isGreaterThanOrEqualTo(5);
        assertThat(leadership.leaderWhenFaultsBegan()).as("the leader when the faults began (%s)", leadership.text()).isNotNegative();
        assertThat(leadership.lost()).as("leases lost by leaders (%s)", leadership.losses()).isZero();
        assertThat(leadership.changes()).as("changes of leader (%s)", leadership.text()).isZero();
        assertThat(leadership.repairs()).as("repairs of the leader's lease (%s)", leadership.text()).isGreaterThanOrEqualTo(5);
        assertThat(report.hasViolations()).as(report.text()).isFalse();
    }

    @Test
    void withoutLeaseRepairsTheLeaderLosesItsLeaseAtTheThirdRestart() throws Exception {
        ChaosOptions options = rollingRestartAllRun(false, "rolling-restart-all-no-repairs");
        CheckReport report = ChaosRun.run(options);
        System.out.println(report.text());
        Leadership leadership = report.leadership();
        assertThat(restarts(options)).as("nodes restarted").isGreaterThanOrEqualTo(5);
        assertThat(leadership.leaderWhenFaultsBegan()).as("the leader when the faults began (%s)", leadership.text()).isNotNegative();
        assertThat(leadership.repairs()).as("repairs, turned off").isZero();
        assertThat(leadership.lost()).as("leases lost by leaders (%s)", leadership.text()).isPositive();
        // Not before the third restart: with two nodes restarted the lease still stands on the other three.
        assertThat(leadership.lossRestarts().get(0)).as("the restart at which the first leader lost its lease (%s)", leadership.losses())
                .isGreaterThanOrEqualTo(3);
    }

    /** How many nodes the run's faults restarted, from its {@code faults.tsv}. */
    private static long restarts(ChaosOptions options) throws Exception {
        return RunFiles.read(options.directory()).faults.stream().mapToLong((fault) -> fault.restartOffsetsMillis().size()).sum();
    }

    /**
     * 3 clients of 2 threads and a candidate each, all with the 2 s max-ttl (a leader's lease is extended every second),
     * on exclusive locks, some extended; 3 s of faults: one {@link FaultKind#ROLLING_RESTART_ALL}, which runs to its end
     * (some 30 s); with the run's seed (random unless {@code chaos.seed}).
     */
    private static ChaosOptions rollingRestartAllRun(boolean leaseRepairs, String name) {
        ChaosOptions defaults = ChaosOptions.fromSystemProperties(3);
        return new ChaosOptions(defaults.seed(), 3, 2, 0, 3, EnumSet.of(FaultKind.ROLLING_RESTART_ALL),
                EnumSet.of(History.Kind.EXCLUSIVE, History.Kind.EXTENDED), ChaosOptions.LONG_HOLDS, RestartQuarantine.AUTO, true,
                Path.of("target/chaos/" + name)).withLeader(true).withLeaseRepairs(leaseRepairs);
    }

}
