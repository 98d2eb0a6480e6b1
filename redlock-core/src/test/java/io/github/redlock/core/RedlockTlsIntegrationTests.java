package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.TlsCertificates;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code rediss://} nodes with certificates from a private certificate authority, on real TLS servers: the builder's
 * {@code sslOptions} trusting that authority lets every lock work; trusting another authority (or only the JVM's) fails
 * the build with an error that names the node and the cause, never a lock that every node silently refuses. Needs a
 * {@code redis-server} built with TLS and {@code openssl} (CI has both); skipped with a message elsewhere.
 */
class RedlockTlsIntegrationTests {

    private static TlsCertificates certificates;

    private static final List<RedisNode> nodes = new ArrayList<>();

    @BeforeAll
    static void startTlsNodes() {
        assumeTrue(TlsCertificates.available(), "needs openssl to generate certificates");
        certificates = TlsCertificates.generate();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(RedisNode.startTls(certificates));
            }
        }
        catch (IllegalStateException ex) {
            assumeTrue(false, "needs a redis-server built with TLS: " + ex.getMessage());
        }
    }

    @AfterAll
    static void stop() {
        nodes.forEach(RedisNode::close);
        nodes.clear();
        if (certificates != null) {
            certificates.close();
        }
    }

    @Test
    void locksWorkOverTlsWhenThePrivateAuthorityIsTrusted() {
        SslOptions trusting = SslOptions.builder().jdkSslProvider().trustManager(certificates.authority().toFile()).build();
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
        SslOptions other = SslOptions.builder().jdkSslProvider().trustManager(certificates.otherAuthority().toFile()).build();
        assertThatExceptionOfType(RedlockArgumentException.class)
                .isThrownBy(() -> Redlock.builder().nodes(tlsUris()).nodeTimeout(Duration.ofSeconds(2)).sslOptions(other).build())
                .satisfies((failure) -> assertThat(failure.getArgument()).isEqualTo("nodes"))
                .withMessageContaining("nodes[0] (" + nodes.get(0).tlsUri().substring("rediss://".length()) + ") failed the TLS handshake")
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
        return nodes.stream().map(RedisNode::tlsUri).toList();
    }

}
