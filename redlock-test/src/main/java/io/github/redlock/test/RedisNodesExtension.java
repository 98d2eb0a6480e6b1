package io.github.redlock.test;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit Jupiter extension that starts real Redis nodes once per test class, undoes faults and empties
 * the nodes after each test, and stops them after the class. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisNodesExtension redis = RedisNodesExtension.of(5);
 * }</pre>
 */
public final class RedisNodesExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final int count;

    private volatile @Nullable RedisNodes nodes;

    private RedisNodesExtension(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        this.count = count;
    }

    /**
     * Creates an extension that will run {@code count} nodes.
     * @param count how many nodes, at least 1
     * @return the extension, to register with {@code @RegisterExtension} on a static field
     */
    public static RedisNodesExtension of(int count) {
        return new RedisNodesExtension(count);
    }

    /**
     * Returns the running nodes.
     * @return the nodes
     * @throws IllegalStateException outside the test class's lifecycle
     */
    public RedisNodes nodes() {
        RedisNodes current = this.nodes;
        if (current == null) {
            throw new IllegalStateException("Redis nodes are not running: register RedisNodesExtension with "
                    + "@RegisterExtension on a static field, and use it from tests or @BeforeEach methods");
        }
        return current;
    }

    /**
     * Returns one node, to inject faults into it.
     * @param index from 0 to {@code count - 1}
     * @return the node
     */
    public RedisNode node(int index) {
        return nodes().node(index);
    }

    /**
     * Returns the nodes' URIs, in start order.
     * @return an unmodifiable list
     */
    public List<String> uris() {
        return nodes().uris();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (this.nodes == null) {
            this.nodes = RedisNodes.start(this.count);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        RedisNodes current = this.nodes;
        if (current != null) {
            current.reset();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RedisNodes current = this.nodes;
        this.nodes = null;
        if (current != null) {
            current.close();
        }
    }

}
