package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;

import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos runs with client processes on real nodes. The first is the smoke run of every build (every fault under
 * which the lock must stay safe, every protection on; {@code -Pchaos} makes it the full run); the controls turn
 * one protection off under the fault it protects against, and expect the checker to find the hazard: a checker
 * that never finds anything proves nothing.
 */
class ChaosRunTests {

    @Test
    void aRunWithEveryFaultUnderWhichTheLockMustStaySafeFindsNoViolation() throws Exception {
        ChaosOptions options = ChaosOptions.fromSystemProperties(30).in(Path.of("target/chaos/all-faults"));
        CheckReport report = ChaosRun.run(options);
        System.out.println(report.text());
        assertThat(report.operations()).as("operations").isPositive();
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
    void withoutFencingAPausedHolderWritesOverItsSuccessor() throws Exception {
        // Fenced locks only: a paused client then holds some, with fencing turned off.
        // About seven pauses in 25 s; with half the holds long, a paused client is likely in the middle of one
        // (9 to 15 stale writes per run measured, against 2 to 7 with the default share of long holds).
        CheckReport report = ChaosRun.run(control(EnumSet.of(FaultKind.CLIENT_PAUSE), EnumSet.of(History.Kind.FENCED),
                0.5, RestartQuarantine.AUTO, false, 25, "no-fencing"));
        System.out.println(report.text());
        assertThat(report.violations(Violation.Kind.STALE_WRITE)).as(report.text()).isPositive();
    }

    /** A control: 3 clients of 4 threads and one kind of fault, with the run's seed (random unless {@code chaos.seed}). */
    private static ChaosOptions control(EnumSet<FaultKind> faults, EnumSet<History.Kind> kinds, double longHolds,
            RestartQuarantine quarantine, boolean fencing, long faultSeconds, String name) {
        ChaosOptions defaults = ChaosOptions.fromSystemProperties(faultSeconds);
        return new ChaosOptions(defaults.seed(), 3, 4, faultSeconds, faults, kinds, longHolds, quarantine, fencing,
                Path.of("target/chaos/" + name));
    }

}
