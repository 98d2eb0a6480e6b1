package io.github.redlock.test.context;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisNodes;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.support.DirtiesContextTestExecutionListener;

/**
 * Keeps the tests of a {@link RedlockNodes @RedlockNodes} context apart: after each test method it undoes the
 * test's faults and empties the nodes ({@link RedisNodes#reset()}); before each test method it waits until the
 * context's {@code Redlock} is connected to every node, since a client reconnects to a restarted node a moment
 * after it is back. Registered in {@code META-INF/spring.factories}; its order puts its {@code afterTestMethod}
 * before the {@link DirtiesContextTestExecutionListener}'s, which may close the context.
 */
class RedlockNodesTestExecutionListener implements TestExecutionListener, Ordered {

    private static final Log logger = LogFactory.getLog(RedlockNodesTestExecutionListener.class);

    private static final Duration RECONNECT_TIMEOUT = Duration.ofSeconds(10);

    @Override
    public int getOrder() {
        return DirtiesContextTestExecutionListener.ORDER + 1_000;
    }

    @Override
    public void beforeTestMethod(TestContext testContext) {
        if (usesNodes(testContext)) {
            testContext.getApplicationContext().getBeanProvider(Redlock.class).ifUnique(this::awaitConnected);
        }
    }

    @Override
    public void afterTestMethod(TestContext testContext) {
        if (usesNodes(testContext) && testContext.hasApplicationContext()) {
            ApplicationContext context = testContext.getApplicationContext();
            if (context.containsBean(RedlockNodesContextCustomizer.NODES_BEAN_NAME)) {
                context.getBean(RedlockNodesContextCustomizer.NODES_BEAN_NAME, RedisNodes.class).reset();
            }
        }
    }

    private boolean usesNodes(TestContext testContext) {
        return TestContextAnnotationUtils.hasAnnotation(testContext.getTestClass(), RedlockNodes.class);
    }

    private void awaitConnected(Redlock redlock) {
        long deadline = System.nanoTime() + RECONNECT_TIMEOUT.toNanos();
        Map<String, NodeStatus> statuses = redlock.nodeStatuses();
        while (anyDown(statuses)) {
            if (System.nanoTime() - deadline > 0) {
                logger.warn("The Redlock is not connected to every node after " + RECONNECT_TIMEOUT.toSeconds()
                        + " s; the test starts anyway: " + statuses);
                return;
            }
            try {
                Thread.sleep(10);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            statuses = redlock.nodeStatuses();
        }
    }

    private static boolean anyDown(Map<String, NodeStatus> statuses) {
        return statuses.values().stream().anyMatch((status) -> status.state() == NodeStatus.State.DOWN);
    }

}
