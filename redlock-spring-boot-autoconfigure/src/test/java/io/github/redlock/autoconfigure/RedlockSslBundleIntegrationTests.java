package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.TlsNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redlock.ssl.bundle} on real TLS servers whose certificates a private authority signed: with a PEM bundle that
 * trusts it the lock works and the health is UP; with a bundle that trusts another authority the application does not
 * start, and says which node and why; a bundle name that does not exist stops it too, naming the bundle.
 */
class RedlockSslBundleIntegrationTests {

    @RegisterExtension
    static final TlsNodesExtension tls = TlsNodesExtension.of(3);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RedlockAutoConfiguration.class,
                        RedlockHealthContributorAutoConfiguration.class))
                .withPropertyValues("redlock.nodes=" + String.join(",", tls.uris()),
                        "redlock.node-timeout=2s",
                        "spring.ssl.bundle.pem.private-ca.truststore.certificate=file:" + tls.certificates().authority(),
                        "spring.ssl.bundle.pem.other-ca.truststore.certificate=file:" + tls.certificates().otherAuthority());
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
                    .hasMessageContaining(tls.uris().get(0).substring("rediss://".length()))
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
