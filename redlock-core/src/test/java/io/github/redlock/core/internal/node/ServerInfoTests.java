package io.github.redlock.core.internal.node;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link ServerInfo#parse}: reading a node's {@code run_id}, uptime and role from the text of {@code INFO server}
 * and {@code INFO replication}, as Redis sends it (CRLF lines, section headers, fields in any order).
 */
class ServerInfoTests {

    private static final String RUN_ID = "5f8b1c0a3e2d4f6a8b9c0d1e2f3a4b5c6d7e8f90";

    @Test
    void readsRunIdUptimeAndRoleFromBothSectionsWithCrlfLines() {
        String info = "# Server\r\nredis_version:7.2.4\r\nrun_id:" + RUN_ID + "\r\ntcp_port:6379\r\nuptime_in_seconds:4242\r\n"
                + "uptime_in_days:0\r\n\r\n# Replication\r\nrole:master\r\nconnected_slaves:0\r\n";
        assertThat(ServerInfo.parse(info, true)).isEqualTo(new ServerInfo(RUN_ID, 4242, true, true, false));
    }

    @Test
    void readsLinesEndedByLineFeedsAlone() {
        String info = "# Server\nrun_id:" + RUN_ID + "\nuptime_in_seconds:7\n# Replication\nrole:master\n";
        assertThat(ServerInfo.parse(info, false)).isEqualTo(new ServerInfo(RUN_ID, 7, true, false, false));
    }

    @Test
    void aSlaveRoleIsNotAMaster() {
        String info = "run_id:" + RUN_ID + "\r\nuptime_in_seconds:1\r\nrole:slave\r\nmaster_host:10.0.0.1\r\n";
        assertThat(ServerInfo.parse(info, false).master()).isFalse();
    }

    @Test
    void anyRoleButMasterIsNotAMaster() {
        assertThat(ServerInfo.parse("run_id:a\r\nrole:replica\r\n", false).master()).isFalse();
        assertThat(ServerInfo.parse("run_id:a\r\nrole:Master\r\n", false).master()).isFalse();
    }

    @Test
    void valuesAreTrimmed() {
        ServerInfo info = ServerInfo.parse("run_id: " + RUN_ID + " \r\nuptime_in_seconds: 12 \r\nrole: master \r\n", false);
        assertThat(info).isEqualTo(new ServerInfo(RUN_ID, 12, true, false, false));
    }

    @Test
    void withoutUptimeAndRoleTheNodeIsAMasterUpForZeroSeconds() {
        // INFO server alone (RedisNodeClient#runId reads only that section) has no role line.
        assertThat(ServerInfo.parse("# Server\r\nrun_id:" + RUN_ID + "\r\n", false)).isEqualTo(new ServerInfo(RUN_ID, 0, true, false, false));
    }

    @Test
    void fieldsThatOnlyEndWithAKnownNameAreIgnored() {
        String info = "master_run_id:other\r\nrun_id:" + RUN_ID + "\r\nmaster_uptime_in_seconds:99\r\nslave_role:slave\r\n";
        assertThat(ServerInfo.parse(info, false)).isEqualTo(new ServerInfo(RUN_ID, 0, true, false, false));
    }

    @Test
    void theLastOfRepeatedFieldsWins() {
        assertThat(ServerInfo.parse("run_id:first\r\nrun_id:second\r\n", false).runId()).isEqualTo("second");
    }

    @Test
    void textWithoutRunIdIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ServerInfo.parse("# Server\r\nuptime_in_seconds:5\r\nrole:master\r\n", false))
                .withMessage("INFO has no run_id");
    }

    @Test
    void emptyTextIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ServerInfo.parse("", false)).withMessage("INFO has no run_id");
    }

    @Test
    void garbageIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ServerInfo.parse("-ERR unknown command 'INFO'", false))
                .withMessage("INFO has no run_id");
    }

    @Test
    void anUptimeThatIsNotANumberIsRefused() {
        assertThatExceptionOfType(NumberFormatException.class)
                .isThrownBy(() -> ServerInfo.parse("run_id:" + RUN_ID + "\r\nuptime_in_seconds:soon\r\n", false));
    }

    @Test
    void anEmptyRunIdIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ServerInfo.parse("run_id:\r\nuptime_in_seconds:5\r\n", false))
                .withMessage("INFO has no run_id");
    }

    @Test
    void aMasterPromotedFromAReplicaHasBeenTheMasterForAnUnknownTime() {
        String info = "run_id:" + RUN_ID + "\r\nuptime_in_seconds:3600\r\nrole:master\r\nmaster_replid2:9a1b\r\nsecond_repl_offset:4711\r\n";
        ServerInfo promoted = ServerInfo.parse(info, false);
        assertThat(promoted.promoted()).isTrue();
        assertThat(promoted.uptimeSeconds()).isEqualTo(3600);
        assertThat(promoted.masterForSeconds()).isZero();
    }

    @Test
    void aMasterThatWasNeverAReplicaHasBeenTheMasterSinceItStarted() {
        ServerInfo info = ServerInfo.parse("run_id:" + RUN_ID + "\r\nuptime_in_seconds:3600\r\nrole:master\r\nsecond_repl_offset:-1\r\n", false);
        assertThat(info.promoted()).isFalse();
        assertThat(info.masterForSeconds()).isEqualTo(3600);
    }

}
