package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.test.Capabilities;
import io.github.redlock.test.ProcessCuts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos runs of {@link FaultKind#CLUSTER_PARTITION} only (issue 45), on four standalone nodes and a Redis Cluster. The
 * hazard: a client process cut off with the master of a locked key's shard (which loses its cluster bus, and so still
 * answers as the master while its replica takes over) keeps locking on that deposed master and two standalone nodes, a
 * bare majority, while the other clients count the promoted replica once its quarantine is over and lock on it and the
 * two standalone nodes the cut-off client lost. A cluster node votes only while a majority of the cluster's other
 * masters confirms its view within 2 s, so the cut-off client stops counting the cluster node before the others can
 * count the promoted replica; the control runs the client processes with that confirmation turned off, and must find a
 * lock granted twice.
 * <p>
 * About a minute each on two cores, as root with nftables ({@link ProcessCuts}), so they run with
 * {@code -Dchaos.cluster=true} or the {@code chaos} profile, as the other cluster runs; the always-on proof of the same
 * hazard is redlock-core's {@code RedlockClusterDeposedMasterIntegrationTests}.
 */
@EnabledIfSystemProperty(named = "chaos.cluster", matches = "true", disabledReason = "minutes, as root: run with -Dchaos.cluster=true or -Pchaos")
class ChaosRunClusterPartitionIntegrationTests {

    @BeforeAll
    static void nftables() {
        Capabilities.assume(Capabilities.NFT, ProcessCuts.available(), "Processes cannot be cut here (run as root with nftables installed)");
    }

    @Test
    void aClientCutOffWithTheDeposedMasterOfAShardStopsCountingItBeforeTheOthersCountThePromotedReplica() throws Exception {
        CheckReport report = ChaosRun.run(clusterPartitionRun(true, "cluster-partition"));
        System.out.println(report.text());
        assertThat(report.faults()).as("faults").containsKey(FaultKind.CLUSTER_PARTITION);
        assertThat(report.grantCount()).as("grants").isPositive();
        assertThat(report.hasViolations()).as(report.text()).isFalse();
    }

    @Test
    void withoutTheOtherMastersConfirmationAClientCutOffWithTheDeposedMasterLocksBesideTheOthers() throws Exception {
        CheckReport report = ChaosRun.run(clusterPartitionRun(false, "cluster-partition-unconfirmed"));
        System.out.println(report.text());
        assertThat(report.faults()).as("faults").containsKey(FaultKind.CLUSTER_PARTITION);
        assertThat(report.violations(Violation.Kind.OVERLAP)).as(report.text()).isPositive();
    }

    /**
     * 3 clients of 6 threads, all with the 2 s max-ttl, on the exclusive keys, every hold long, 25 s of faults: two
     * {@link FaultKind#CLUSTER_PARTITION} (each some 16 s: a quarantine, the confirmation bound and 6 to 8 s after the
     * promotion, then the former master's return), with the run's seed (random unless {@code chaos.seed}).
     */
    private static ChaosOptions clusterPartitionRun(boolean confirmation, String name) {
        ChaosOptions defaults = ChaosOptions.fromSystemProperties(25);
        return new ChaosOptions(defaults.seed(), 3, 6, 0, 25, EnumSet.of(FaultKind.CLUSTER_PARTITION), EnumSet.of(History.Kind.EXCLUSIVE),
                1.0, RestartQuarantine.AUTO, true, Path.of("target/chaos/" + name)).withSentinelConfirmation(confirmation);
    }

}
