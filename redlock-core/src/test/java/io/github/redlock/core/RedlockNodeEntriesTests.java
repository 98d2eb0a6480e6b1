package io.github.redlock.core;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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

    /**
     * Passwords as cloud consoles hand them out (base64 with {@code /} and {@code +}), with a space, with raw {@code @}:
     * Lettuce refuses each of these entries, and its message quotes the entry, or the rest of it from where it stopped
     * ({@code For input string: "Wv7==@10.0.0.1:port"}). Not a fragment of the password reaches the message.
     */
    @Test
    void noFragmentOfAPasswordWithSlashesPlusesSpacesOrRawAtSignsIsEverPrinted() {
        String[][] entries = {
                { "redis://app:Zq9/Xk+Wv7==@10.0.0.1:port", "Zq9/Xk+Wv7==" },
                { "redis://app:Zq9 Xk4/Wv7@10.0.0.1:6379", "Zq9 Xk4/Wv7" },
                { "redis://:Zq9@Xk4@Wv7@10.0.0.1:99x", "Zq9@Xk4@Wv7" },
                { "redis-sentinel://:Zq9 Xk4+Wv7@10.0.0.1:26379,10.0.0.2:26379#locks", "Zq9 Xk4+Wv7" },
                { "rediss://app:Zq9/Xk4+Wv7@10.0.0.1:6379/x y", "Zq9/Xk4+Wv7" } };
        for (String[] entry : entries) {
            RedlockArgumentException refused = catchThrowableOfType(RedlockArgumentException.class,
                    () -> Redlock.builder().nodes("redis://127.0.0.1:7001", "redis://127.0.0.1:7002", entry[0]).build());
            assertThat(refused).as(entry[0]).isNotNull();
            StringBuilder printed = new StringBuilder();
            for (Throwable cause = refused; cause != null; cause = cause.getCause()) {
                printed.append(cause).append('\n');
            }
            assertThat(printed).as(entry[0]).contains("****").doesNotContain(entry[1]);
            Arrays.stream(entry[1].split("[/+ @=]+")).forEach((fragment) -> assertThat(printed).as(entry[0]).doesNotContain(fragment));
        }
    }

}
