package io.github.redlock.chaos;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import io.github.redlock.core.RestartQuarantine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The fleet a run's options make (which client processes get the short max-ttl), and the switches and the leader
 * election of the controls.
 */
class ChaosOptionsTests {

    @Test
    void theShortClientsAreDrawnFromTheSeed() {
        List<Long> maxTtls = options(42, 4, 1).clientMaxTtlMillis();
        assertThat(maxTtls).hasSize(4).containsOnly(ChaosOptions.MAX_TTL_MILLIS, ChaosOptions.SHORT_MAX_TTL_MILLIS);
        assertThat(maxTtls).filteredOn((maxTtl) -> maxTtl == ChaosOptions.SHORT_MAX_TTL_MILLIS).hasSize(1);
        assertThat(options(42, 4, 1).clientMaxTtlMillis()).as("the same seed, the same fleet").isEqualTo(maxTtls);
        assertThat(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L).stream().map((seed) -> options(seed, 4, 1).clientMaxTtlMillis()).distinct())
            .as("other seeds, other processes").hasSizeGreaterThan(1);
    }

    @Test
    void noClientIsShortWhenNoneIsAskedFor() {
        assertThat(options(42, 3, 0).clientMaxTtlMillis()).containsExactly(2_000L, 2_000L, 2_000L);
    }

    @Test
    void atLeastOneClientKeepsTheLongMaxTtl() {
        assertThatIllegalArgumentException().isThrownBy(() -> options(42, 3, 3))
            .withMessageContaining("chaos.shortClients must leave at least one client with the long max-ttl");
    }

    @Test
    void aLongerMaxTtlGivesTheShortClientsAQuarterOfItAndALongerTail() {
        ChaosOptions longer = options(42, 4, 1).withMaxTtl(4_000);
        assertThat(longer.clientMaxTtlMillis()).as("the same processes, with the longer max-ttls")
            .containsExactlyElementsOf(options(42, 4, 1).clientMaxTtlMillis().stream().map((maxTtl) -> 2 * maxTtl).toList());
        assertThat(longer.tailMillis() - options(42, 4, 1).tailMillis()).as("a longer quarantine and ttl to wait out").isEqualTo(4_020);
        assertThatIllegalArgumentException().isThrownBy(() -> options(42, 4, 1).withMaxTtl(300))
            .withMessageContaining("max-ttl must be at least 400 ms");
    }

    @Test
    void theLockedKeysAreTheRedisKeysOfTheKindsTheRunTakes() {
        ChaosOptions exclusive = new ChaosOptions(1, 2, 1, 0, 1, EnumSet.of(FaultKind.CLUSTER_FAILOVER),
                EnumSet.of(History.Kind.EXCLUSIVE, History.Kind.EXTENDED), 1.0, RestartQuarantine.AUTO, true, Path.of("target/chaos/options"));
        assertThat(exclusive.lockedKeys()).hasSize(ChaosOptions.KEYS).first().isEqualTo("redlock:x:0");
        assertThat(options(1, 2, 0).lockedKeys()).hasSize(3 * ChaosOptions.KEYS).contains("redlock:rw:7", "fenced:f:7");
    }

    @Test
    void theSentinelsConfirmationIsOnUnlessTurnedOffAndKeptByTheOtherChanges() {
        assertThat(options(42, 3, 0).sentinelConfirmation()).isTrue();
        ChaosOptions control = options(42, 3, 0).withSentinelConfirmation(false);
        assertThat(control.sentinelConfirmation()).isFalse();
        assertThat(control.withMaxTtl(4_000).in(Path.of("target/chaos/other")).sentinelConfirmation()).isFalse();
        assertThat(control.withSentinelConfirmation(true)).isEqualTo(options(42, 3, 0));
    }

    @Test
    void leaseRepairsAreOnUnlessTurnedOffAndTheControlRunsItsClientsWithTheCoresSwitch() {
        assertThat(options(42, 3, 0).leaseRepairs()).isTrue();
        assertThat(options(42, 3, 0).clientSwitches()).isEmpty();
        ChaosOptions control = options(42, 3, 0).withLeader(true).withLeaseRepairs(false);
        assertThat(control.clientSwitches()).containsExactly("-Dredlock.internal.no-lease-repairs=true");
        assertThat(control.withMaxTtl(4_000).in(Path.of("target/chaos/other")).withSentinelConfirmation(true).leaseRepairs()).isFalse();
        assertThat(control.withSentinelConfirmation(false).clientSwitches()).as("both groups' confirmations off").containsExactly(
                "-Dredlock.internal.unconfirmed-sentinels=true", "-Dredlock.internal.unconfirmed-clusters=true",
                "-Dredlock.internal.no-lease-repairs=true");
        assertThat(control.withLeaseRepairs(true).withLeader(false)).isEqualTo(options(42, 3, 0));
    }

    @Test
    void theStoragesFenceIsOnUnlessTurnedOffAndKeptByTheOtherChanges() {
        assertThat(options(42, 3, 0).storageFence()).isTrue();
        ChaosOptions control = options(42, 3, 0).withStorageFence(false);
        assertThat(control.storageFence()).isFalse();
        assertThat(control.fencing()).as("the holders still draw their tokens").isTrue();
        assertThat(control.withMaxTtl(4_000).in(Path.of("target/chaos/other")).withLeader(true).withLeaseRepairs(false)
            .withSentinelConfirmation(false).storageFence()).isFalse();
        assertThat(control.clientSwitches()).as("no switch of the core: the storage is the run's").isEmpty();
        assertThat(control.withStorageFence(true)).isEqualTo(options(42, 3, 0));
    }

    @Test
    void theRecordsAreReadByTheQuorumIntersectionRuleUnlessTheControlAsksForTheFormerReads() {
        assertThat(options(42, 3, 0).formerRecordReads()).isFalse();
        ChaosOptions control = options(42, 3, 0).withFormerRecordReads(true);
        assertThat(control.clientSwitches()).containsExactly("-Dredlock.internal.former-record-reads=true");
        assertThat(control.withMaxTtl(4_000).in(Path.of("target/chaos/other")).withLeader(true).withLeaseRepairs(false)
            .withSentinelConfirmation(false).withStorageFence(false).formerRecordReads()).isTrue();
        assertThat(control.withFormerRecordReads(false)).isEqualTo(options(42, 3, 0));
    }

    @Test
    void theDeposedMasterAndThePartitionsCannotShareARun() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ChaosOptions(1, 3, 1, 0, 1,
                EnumSet.of(FaultKind.DEPOSED_MASTER, FaultKind.PARTITION), EnumSet.allOf(History.Kind.class), 0.05, RestartQuarantine.AUTO, true,
                Path.of("target/chaos/options"))).withMessageContaining("DEPOSED_MASTER and the partition faults");
        assertThat(FaultKind.safe()).as("not in the default mix: they need root").doesNotContain(FaultKind.PARTITION,
                FaultKind.PARTITIONED_RESTART);
    }

    @Test
    void aRunOfRollingRestartsOfEveryNodeHoldsALeaderElectionUnlessToldOtherwise() {
        assertThat(fromProperties("ROLLING_RESTART_ALL", "", "")).satisfies((options) -> {
            assertThat(options.faults()).containsExactly(FaultKind.ROLLING_RESTART_ALL);
            assertThat(options.leader()).isTrue();
            assertThat(options.leaseRepairs()).isTrue();
        });
        assertThat(fromProperties("ROLLING_RESTART_ALL", "false", "false")).satisfies((options) -> {
            assertThat(options.leader()).isFalse();
            assertThat(options.leaseRepairs()).isFalse();
        });
        assertThat(fromProperties("", "", "")).satisfies((options) -> {
            assertThat(options.faults()).as("not in the default mix").doesNotContain(FaultKind.ROLLING_RESTART_ALL);
            assertThat(options.leader()).isFalse();
        });
        assertThat(fromProperties("NODE_RESTART", "true", "")).satisfies((options) -> assertThat(options.leader()).isTrue());
    }

    /** Options from the {@code chaos.*} system properties with the given faults, leader election and lease repairs. */
    private static ChaosOptions fromProperties(String faults, String leader, String leaseRepairs) {
        String[][] properties = { { "chaos.faults", faults }, { "chaos.leader", leader }, { "chaos.leaseRepairs", leaseRepairs } };
        String[] before = new String[properties.length];
        for (int i = 0; i < properties.length; i++) {
            before[i] = System.setProperty(properties[i][0], properties[i][1]);
        }
        try {
            return ChaosOptions.fromSystemProperties(1);
        }
        finally {
            for (int i = 0; i < properties.length; i++) {
                if (before[i] == null) {
                    System.clearProperty(properties[i][0]);
                }
                else {
                    System.setProperty(properties[i][0], before[i]);
                }
            }
        }
    }

    private static ChaosOptions options(long seed, int clients, int shortClients) {
        return new ChaosOptions(seed, clients, 1, shortClients, 1, EnumSet.of(FaultKind.NODE_RESTART), EnumSet.allOf(History.Kind.class),
                0.05, RestartQuarantine.AUTO, true, Path.of("target/chaos/options"));
    }

}
