package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code redlock.ssl.bundle} on real TLS servers whose certificates a private authority signed: with a PEM bundle that
 * trusts it the lock works and the health is UP; with a bundle that trusts another authority the application does not
 * start, and says which node and why; a bundle name that does not exist stops it too, naming the bundle.
 */
class RedlockSslBundleIntegrationTests {

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

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockHealthContributorAutoConfiguration.class))
                .withPropertyValues("redlock.nodes=" + nodes.stream().map(RedisNode::tlsUri).collect(Collectors.joining(",")),
                        "redlock.node-timeout=2s",
                        "spring.ssl.bundle.pem.private-ca.truststore.certificate=file:" + certificates.authority(),
                        "spring.ssl.bundle.pem.other-ca.truststore.certificate=file:" + certificates.otherAuthority());
    }

    @Test
    void aBundleThatTrustsThePrivateAuthorityConnectsEveryNode() {
        runner().withPropertyValues("redlock.ssl.bundle=private-ca").run((context) -> {
            assertThat(context).hasNotFailed();
            Redlock redlock = context.getBean(Redlock.class);
            RedlockLease lease = redlock.acquire("bundle:k", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(lease.release()).isTrue();
            Health health = context.getBean(RedlockHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            @SuppressWarnings("unchecked")
            Map<String, String> states = (Map<String, String>) health.getDetails().get("nodes");
            assertThat(states.values()).containsOnly("UP");
        });
    }

    @Test
    void aBundleThatTrustsAnotherAuthorityStopsTheStartNamingTheNode() {
        runner().withPropertyValues("redlock.ssl.bundle=other-ca").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("failed the TLS handshake")
                    .hasMessageContaining(nodes.get(0).tlsUri().substring("rediss://".length()))
                    .hasMessageContaining("redlock.ssl.bundle");
        });
    }

    @Test
    void anUnknownBundleNameStopsTheStartNamingIt() {
        runner().withPropertyValues("redlock.ssl.bundle=missing").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("missing");
        });
    }

}
