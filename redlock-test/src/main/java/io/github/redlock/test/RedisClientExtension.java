package io.github.redlock.test;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit Jupiter extension that gives each test a fresh client of the nodes of a {@link RedisNodesExtension}:
 * it builds the client from the nodes' URIs before each test and closes it after the test, also when the
 * test failed. Register it on an instance field, after the static nodes extension:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisNodesExtension redis = RedisNodesExtension.of(5);
 *
 * @RegisterExtension
 * final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis,
 *         (uris) -> Redlock.builder().nodes(uris).build());
 * }</pre>
 *
 * The client is closed before the nodes extension resets the nodes, so nothing it still sends reaches the
 * next test.
 *
 * @param <T> the type of client
 */
public final class RedisClientExtension<T extends AutoCloseable> implements BeforeEachCallback, AfterEachCallback {

    private final RedisNodesExtension nodes;

    private final Function<List<String>, T> factory;

    private volatile @Nullable T client;

    private RedisClientExtension(RedisNodesExtension nodes, Function<List<String>, T> factory) {
        this.nodes = Objects.requireNonNull(nodes, "nodes must not be null");
        this.factory = Objects.requireNonNull(factory, "factory must not be null");
    }

    /**
     * Creates an extension that builds one client per test with {@code factory}.
     * @param nodes the nodes extension whose URIs the client connects to
     * @param factory builds a client from the nodes' URIs, in start order
     * @param <T> the type of client
     * @return the extension, to register with {@code @RegisterExtension} on an instance field
     */
    public static <T extends AutoCloseable> RedisClientExtension<T> of(RedisNodesExtension nodes,
            Function<List<String>, T> factory) {
        return new RedisClientExtension<>(nodes, factory);
    }

    /**
     * Returns the client of the running test.
     * @return the client
     * @throws IllegalStateException outside a test, or when the factory failed
     */
    public T get() {
        T current = this.client;
        if (current == null) {
            throw new IllegalStateException("No client: register RedisClientExtension with @RegisterExtension "
                    + "on an instance field, and use it from tests or @BeforeEach methods");
        }
        return current;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        T created = this.factory.apply(this.nodes.uris());
        this.client = Objects.requireNonNull(created, "factory returned null");
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        T current = this.client;
        this.client = null;
        if (current != null) {
            current.close();
        }
    }

}
