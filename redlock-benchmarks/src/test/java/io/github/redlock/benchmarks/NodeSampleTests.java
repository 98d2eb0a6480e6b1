package io.github.redlock.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

/**
 * Two samples of a node give what happened in between, without the sampling's own {@code INFO}: its call, its reply's
 * bytes and the next request's bytes.
 */
class NodeSampleTests {

    private static final String EARLIER = info(0.5, 0.4, 1000, 2000, "cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0");

    @Test
    void aSampleReadsCommandsCpuBytesAndVersion() {
        NodeSample sample = NodeSample.parse(EARLIER);
        assertThat(sample.commands()).containsEntry("evalsha", new NodeSample.Calls(10, 100));
        assertThat(sample.processCpuSeconds()).isCloseTo(0.5, within(1e-9));
        assertThat(sample.mainThreadCpuSeconds()).isCloseTo(0.4, within(1e-9));
        assertThat(sample.version()).isEqualTo("7.0.15");
    }

    @Test
    void theDifferenceLeavesOutTheEarlierSamplesInfo() {
        NodeSample earlier = NodeSample.parse(EARLIER);
        String later = info(0.75, 0.6, 1500 + NodeSample.REQUEST_BYTES, 2100 + earlier.replyBytes(),
                "cmdstat_evalsha:calls=30,usec=300,usec_per_call=10.00,rejected_calls=0,failed_calls=0",
                "cmdstat_set:calls=5,usec=20,usec_per_call=4.00,rejected_calls=0,failed_calls=0",
                "cmdstat_info:calls=1,usec=80,usec_per_call=80.00,rejected_calls=0,failed_calls=0");
        NodeSample between = NodeSample.parse(later).since(earlier);
        assertThat(between.commands()).containsOnlyKeys("evalsha", "set")
            .containsEntry("evalsha", new NodeSample.Calls(20, 200))
            .containsEntry("set", new NodeSample.Calls(5, 20));
        assertThat(between.inputBytes()).isEqualTo(500);
        assertThat(between.outputBytes()).isEqualTo(100);
        assertThat(between.mainThreadCpuSeconds()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void aServerWithoutPerThreadCpuIsRefusedWithTheVersionNeeded() {
        assertThatIllegalStateException().isThrownBy(() -> NodeSample.parse(EARLIER.replace("used_cpu_sys_main_thread", "x")))
            .withMessageContaining("Redis 6.2 or later");
    }

    private static String info(double process, double main, long in, long out, String... commands) {
        return String.join("\r\n", "# Server", "redis_version:7.0.15", "# Stats", "total_net_input_bytes:" + in,
                "total_net_output_bytes:" + out, "# CPU", "used_cpu_sys:" + process / 2, "used_cpu_user:" + process / 2,
                "used_cpu_sys_main_thread:" + main / 2, "used_cpu_user_main_thread:" + main / 2, "# Commandstats",
                String.join("\r\n", commands)) + "\r\n";
    }

}
