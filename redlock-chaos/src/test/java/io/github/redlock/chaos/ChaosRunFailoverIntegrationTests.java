package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;

import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos runs of {@link FaultKind#FAILOVER} only, on three standalone nodes, the faked-clock node and a Sentinel group.
 * The hazard: the replica that the sentinels promote lacks the keys that the former master acknowledged while the
 * replica lagged, so that a lock held through the group, on a bare majority, is free on a majority once the promoted
 * replica votes. The restart quarantine keeps it from voting for a whole quarantine from when a client sees it; the
 * control, with the quarantine off, must find a lock granted twice.
 * <p>
 * About 100 s for the pair, so they run with {@code -Dchaos.failover=true} or the {@code chaos} profile, to keep the
 * default build near 15 minutes; the always-on proof of the same hazard and its control is redlock-core's
 * {@code RedlockSentinelIntegrationTests}, and of the fault's mechanics {@code FaultsIntegrationTests}.
 */
@EnabledIfSystemProperty(named = "chaos.failover", matches = "true", disabledReason = "100 s: run with -Dchaos.failover=true or -Pchaos")
class ChaosRunFailoverIntegrationTests {

    @Test
    void theRestartQuarantineKeepsAReplicaPromotedWithoutTheKeysOfHeldLocksFromVoting() throws Exception {
        CheckReport report = ChaosRun.run(failoverRun(RestartQuarantine.AUTO, "failover"));
        System.out.println(report.text());
        assertThat(report.faults()).as("faults").containsKey(FaultKind.FAILOVER);
        assertThat(report.grantCount()).as("grants").isPositive();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
    }

    @Test
    void withoutTheRestartQuarantineAReplicaPromotedWithoutTheKeysOfHeldLocksGrantsALockTwice() throws Exception {
        CheckReport report = ChaosRun.run(failoverRun(RestartQuarantine.NEVER, "failover-no-quarantine"));
        System.out.println(report.text());
        assertThat(report.violations(Violation.Kind.OVERLAP)).as(report.text()).isPositive();
    }

    /**
     * 3 clients of 6 threads, one with the short max-ttl, on the 8 exclusive keys, 20 s of failovers, with the run's seed
     * (random unless {@code chaos.seed}). Every hold is long, and the max-ttl is 4 s rather than 2: a promoted replica
     * votes some 1.5 s after the master is killed, when a lock taken in the lag before must still be held (and waited
     * for by other threads) for the hazard to show. With 2 s, the control found 1 to 3 overlaps in 6 failovers.
     */
    private static ChaosOptions failoverRun(RestartQuarantine quarantine, String name) {
        ChaosOptions defaults = ChaosOptions.fromSystemProperties(20);
        return new ChaosOptions(defaults.seed(), 3, 6, 1, 20, EnumSet.of(FaultKind.FAILOVER), EnumSet.of(History.Kind.EXCLUSIVE), 1.0,
                quarantine, true, Path.of("target/chaos/" + name)).withMaxTtl(4_000);
    }

}
