package io.github.redlock.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests the node entries the builder refuses before it connects anywhere: a Sentinel node without its master name,
 * a Redis Cluster entry without ports, one group or cluster listed twice.
 */
class RedlockNodeEntriesTests {

    @Test
    void aSentinelNodeWithoutAMasterNameIsRefusedWithTheFormToWrite() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis://127.0.0.1:7002", "redis-sentinel://127.0.0.1:26379").build())
                .withMessageContaining("nodes[2] 'redis-sentinel://127.0.0.1:26379' names no master")
                .withMessageContaining("redis-sentinel://host:port,host:port#master-name");
    }

    @Test
    void aClusterSeedWithoutAPortIsRefusedWithTheFormToWriteAndNoPassword() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis://127.0.0.1:7002",
                        "redis-cluster://:s3cret@127.0.0.1:7000,127.0.0.1").build())
                .withMessageContaining("nodes[2] 'redis-cluster://****@127.0.0.1:7000,127.0.0.1' is not a valid Redis Cluster entry")
                .withMessageContaining("a seed node is not host:port: '127.0.0.1'")
                .withMessageContaining("redis-cluster://host:port,host:port").withMessageNotContaining("s3cret");
    }

    @Test
    void twoEntriesOfOneClusterAreRefused() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis-cluster://127.0.0.1:7000,127.0.0.1:7002",
                        "redis-cluster://127.0.0.1:7003,127.0.0.1:7002").build())
                .withMessageContaining("nodes lists 127.0.0.1:7002 twice");
    }

    @Test
    void aSentinelGroupListedTwiceIsRefused() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#locks",
                        " redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#locks").build())
                .withMessageContaining("nodes lists locks@127.0.0.1:26379,127.0.0.1:26380 twice");
    }

    @Test
    void aSentinelNodesPasswordIsNeverPrinted() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis://127.0.0.1:7002", "redis-sentinel://s3cret@127.0.0.1:26379").build())
                .withMessageNotContaining("s3cret").withMessageContaining("****@");
    }

}
