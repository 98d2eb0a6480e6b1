package io.github.redlock.test;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit Jupiter extension that generates {@link TlsCertificates} and starts real nodes serving TLS with them once per
 * test class, and stops them and deletes the certificates after it. Where certificates cannot be generated
 * ({@code openssl} missing) or the server refuses the TLS options (a build without TLS; Debian's and the binary shipped
 * in {@code embedded-redis} both have it), the class is skipped with a message that says which, or fails where the build
 * requires TLS ({@link Capabilities#TLS}); any other failure to start the nodes fails the class. Register it on a static
 * field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TlsNodesExtension tls = TlsNodesExtension.of(3);
 * // tls.uris(): "rediss://127.0.0.1:<port>", …; tls.certificates().authority(): the CA to trust
 * }</pre>
 */
public final class TlsNodesExtension implements BeforeAllCallback, AfterAllCallback {

    private final int count;

    private volatile @Nullable TlsCertificates certificates;

    private volatile @Nullable RedisNodes nodes;

    private TlsNodesExtension(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        this.count = count;
    }

    /**
     * Creates an extension that will run {@code count} TLS nodes.
     * @param count how many nodes, at least 1
     * @return the extension, to register with {@code @RegisterExtension} on a static field
     */
    public static TlsNodesExtension of(int count) {
        return new TlsNodesExtension(count);
    }

    /**
     * Returns the running nodes; {@link RedisNodes#tlsUris()} gives their TLS URIs.
     * @return the nodes
     * @throws IllegalStateException outside the test class's lifecycle
     */
    public RedisNodes nodes() {
        RedisNodes current = this.nodes;
        if (current == null) {
            throw new IllegalStateException("TLS nodes are not running: register TlsNodesExtension with @RegisterExtension "
                    + "on a static field, and use it from tests");
        }
        return current;
    }

    /**
     * Returns the certificates the nodes serve, and the authorities to trust (or not).
     * @return the certificates
     * @throws IllegalStateException outside the test class's lifecycle
     */
    public TlsCertificates certificates() {
        TlsCertificates current = this.certificates;
        if (current == null) {
            throw new IllegalStateException("No certificates: register TlsNodesExtension with @RegisterExtension on a static field");
        }
        return current;
    }

    /**
     * Returns the nodes' TLS URIs, in start order, e.g. {@code rediss://127.0.0.1:41235}.
     * @return an unmodifiable list
     */
    public List<String> uris() {
        return nodes().tlsUris();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Capabilities.assume(Capabilities.TLS, TlsCertificates.available(), "needs openssl to generate certificates (apt-get install openssl)");
        TlsCertificates generated = TlsCertificates.generate();
        this.certificates = generated;
        try {
            this.nodes = RedisNodes.startTls(this.count, generated);
        }
        catch (IllegalStateException ex) {
            // Skipped only where the server provably has no TLS: it refuses the TLS options themselves. Any other failure
            // to start (a timeout, a crash, a port) fails the class.
            Capabilities.assume(Capabilities.TLS, !lacksTls(ex), "needs a redis-server built with TLS, and "
                    + ((ex.getMessage() != null) ? ex.getMessage().lines().filter((line) -> line.contains("tls")).findFirst().orElse("") : ""));
            throw ex;
        }
    }

    /** Whether a failure to start says that the server does not know the TLS options (a build without TLS). */
    static boolean lacksTls(IllegalStateException failure) {
        String message = String.valueOf(failure.getMessage());
        return message.contains("tls-") && (message.contains("Bad directive") || message.contains("Unrecognized option")
                || message.contains("unknown option"));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RedisNodes current = this.nodes;
        this.nodes = null;
        if (current != null) {
            current.close();
        }
        TlsCertificates generated = this.certificates;
        this.certificates = null;
        if (generated != null) {
            generated.close();
        }
    }

}
