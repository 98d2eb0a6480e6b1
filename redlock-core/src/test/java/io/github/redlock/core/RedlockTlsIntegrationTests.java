package io.github.redlock.core;

import java.time.Duration;
import java.util.List;

import io.github.redlock.test.TlsNodesExtension;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code rediss://} nodes with certificates from a private certificate authority, on real TLS servers: the builder's
 * {@code sslOptions} trusting that authority lets every lock work; trusting another authority (or only the JVM's) fails
 * the build with an error that names the node and the cause, never a lock that every node silently refuses. Needs a
 * {@code redis-server} built with TLS and {@code openssl} (CI has both); skipped with a message elsewhere.
 */
class RedlockTlsIntegrationTests {

    @RegisterExtension
    static final TlsNodesExtension tls = TlsNodesExtension.of(3);

    @Test
    void locksWorkOverTlsWhenThePrivateAuthorityIsTrusted() {
        SslOptions trusting = SslOptions.builder().jdkSslProvider().trustManager(tls.certificates().authority().toFile()).build();
        try (Redlock first = Redlock.builder().nodes(tlsUris()).nodeTimeout(Duration.ofSeconds(2)).sslOptions(trusting).fencing(true).build();
                Redlock second = Redlock.builder().nodes(tlsUris()).nodeTimeout(Duration.ofSeconds(2)).sslOptions(trusting).fencing(true).build()) {
            RedlockLease lease = first.acquire("tls:k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(lease.fencingToken()).isPositive();
            assertThat(second.tryAcquire("tls:k", Duration.ofSeconds(10))).isEmpty();
            assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
            assertThat(lease.release()).isTrue();
            assertThat(second.tryAcquireWrite("tls:rw", Duration.ofSeconds(10))).hasValueSatisfying((writer) -> assertThat(writer.release()).isTrue());
        }
    }

    @Test
    void aNodeSignedByAnAuthorityTheClientDoesNotTrustFailsTheBuildNamingTheNode() {
        SslOptions other = SslOptions.builder().jdkSslProvider().trustManager(tls.certificates().otherAuthority().toFile()).build();
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes(tlsUris()).nodeTimeout(Duration.ofSeconds(2)).sslOptions(other).build())
                .satisfies((failure) -> assertThat(failure.getArgument()).isEqualTo("nodes"))
                .withMessageContaining("nodes[0] (" + tls.uris().get(0).substring("rediss://".length()) + ") failed the TLS handshake")
                .withMessageContaining("certification path")
                .withMessageContaining("trust the certificate authority");
    }

    @Test
    void withoutTheAuthorityTheJvmsTrustStoreRefusesTheNodeAtBuild() {
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes(tlsUris()).nodeTimeout(Duration.ofSeconds(2)).build())
                .withMessageContaining("failed the TLS handshake");
    }

    private static List<String> tlsUris() {
        return tls.uris();
    }

}
