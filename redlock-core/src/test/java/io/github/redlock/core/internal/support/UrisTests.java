package io.github.redlock.core.internal.support;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link Uris}: a failure is described by its whole cause chain, each message once, and never with a password.
 */
class UrisTests {

    @Test
    void aFailureIsDescribedCauseByCauseWithoutRepeatsOrPasswords() {
        Exception root = new IllegalStateException("WRONGPASS invalid username-password pair");
        Exception failure = new IOException("Unable to connect to redis://:s3cret@10.0.0.1:6379", new RuntimeException(root.getMessage(), root));
        assertThat(Uris.describe(failure))
                .isEqualTo("Unable to connect to redis://****@10.0.0.1:6379: WRONGPASS invalid username-password pair");
    }

    @Test
    void aCauseWithoutMessageIsNamedByItsType() {
        assertThat(Uris.describe(new IOException("Unable to connect", new NullPointerException()))).isEqualTo("Unable to connect: NullPointerException");
    }

}
