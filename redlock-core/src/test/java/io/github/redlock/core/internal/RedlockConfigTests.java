package io.github.redlock.core.internal;

import java.util.Arrays;

import io.github.redlock.core.RedlockArgumentException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests how {@link RedlockConfig} names a refused node: never with its user-info (a password, or a user and a password).
 */
class RedlockConfigTests {

    @Test
    void aRefusedNodeIsNamedWithoutItsPassword() {
        assertThatExceptionOfType(RedlockArgumentException.class).isThrownBy(() -> of("redis://:s3cret@10.0.0.1:6379", "http://u:s3cret@10.0.0.2:6379"))
                .withMessageContaining("nodes[1] 'http://****@10.0.0.2:6379' is not a Redis URI")
                .withMessageNotContaining("s3cret");
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> of("redis://u:s3cret@10.0.0.1:6379", "redis://other:s3cret@10.0.0.1:6379"))
                .withMessage("nodes lists 10.0.0.1:6379 twice; Redlock needs N independent masters, each listed once");
    }

    private static RedlockConfig of(String... nodes) {
        return RedlockConfig.of(Arrays.asList(nodes), RedlockConfig.DEFAULT_NODE_TIMEOUT, RedlockConfig.DEFAULT_CLOCK_DRIFT_FACTOR,
                RedlockConfig.DEFAULT_RETRY_DELAY, RedlockConfig.DEFAULT_KEY_PREFIX, RedlockConfig.DEFAULT_ACQUISITION_BUDGET,
                RedlockConfig.DEFAULT_MAX_TTL, RedlockConfig.DEFAULT_RESTART_QUARANTINE, RedlockConfig.DEFAULT_FENCING, null, null, null,
                null, null, null, null, null);
    }

}
