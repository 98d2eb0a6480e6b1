package io.github.redlock.test;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests {@link Capabilities}: a missing tool skips a test, unless the build requires it, when the test fails; and
 * {@link TlsNodesExtension}'s reading of a failed start: only a server that refuses the TLS options lacks TLS.
 */
class CapabilitiesTests {

    @AfterEach
    void clear() {
        System.clearProperty(Capabilities.PROPERTY);
    }

    @Test
    void aPresentCapabilityNeitherSkipsNorFails() {
        System.setProperty(Capabilities.PROPERTY, "tls,valkey");
        assertThatNoException().isThrownBy(() -> Capabilities.assume(Capabilities.TLS, true, "missing"));
    }

    @Test
    void aMissingCapabilitySkipsWhereTheBuildDoesNotRequireIt() {
        System.setProperty(Capabilities.PROPERTY, "valkey");
        assertThatExceptionOfType(TestAbortedException.class).isThrownBy(() -> Capabilities.assume(Capabilities.TLS, false, "needs openssl"))
                .withMessageContaining("needs openssl");
    }

    @Test
    void aMissingCapabilityFailsWhereTheBuildRequiresIt() {
        System.setProperty(Capabilities.PROPERTY, " jdk21, TLS ,faketime");
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Capabilities.assume(Capabilities.TLS, false, "needs openssl"))
                .withMessageContaining("needs openssl").withMessageContaining("this build requires 'tls'")
                .withMessageContaining("REDLOCK_CI_REQUIRE= jdk21, TLS ,faketime");
        assertThat(Capabilities.required(Capabilities.FAKETIME)).isTrue();
        assertThat(Capabilities.required(Capabilities.VALKEY)).isFalse();
    }

    @Test
    void onlyAServerThatRefusesTheTlsOptionsLacksTls() {
        assertThat(TlsNodesExtension.lacksTls(new IllegalStateException("redis-server exited on port 4711; its log ends with:\n"
                + "*** FATAL CONFIG FILE ERROR (Redis 6.0.16) ***\n>>> 'tls-port \"4712\"'\nBad directive or wrong number of arguments"))).isTrue();
        assertThat(TlsNodesExtension.lacksTls(new IllegalStateException("redis-server on port 4711 did not answer PING within 10 s; "
                + "its log ends with:\n# Server initialized"))).isFalse();
        assertThat(TlsNodesExtension.lacksTls(new IllegalStateException("redis-server exited on port 4711; its log ends with:\n"
                + "# Failed to load certificate: tls-cert-file"))).as("a TLS build that failed for another reason").isFalse();
    }

}
