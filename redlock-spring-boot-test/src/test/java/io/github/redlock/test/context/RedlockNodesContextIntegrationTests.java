package io.github.redlock.test.context;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.autoconfigure.RedlockProperties;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * How the nodes of {@link RedlockNodes @RedlockNodes} follow the application contexts: shared through Spring's
 * context cache by test classes of one configuration, and stopped with their context. Each test loads the
 * contexts of the test classes below, as the test framework would, and closes them.
 */
class RedlockNodesContextIntegrationTests {

    @Test
    void testClassesOfOneConfigurationShareTheirNodes() {
        TestContext three = testContext(ThreeNodes.class);
        TestContext alsoThree = testContext(AlsoThreeNodes.class);
        TestContext five = testContext(FiveNodes.class);
        try {
            RedisNodes shared = nodes(three);
            assertThat(nodes(alsoThree)).isSameAs(shared);
            assertThat(nodes(five).size()).isEqualTo(5);
            assertThat(nodes(five).uris()).doesNotContainAnyElementsOf(shared.uris());
            assertThat(five.getApplicationContext().getBean(RedlockConnectionDetails.class).getNodes())
                    .containsExactlyElementsOf(nodes(five).uris());
        }
        finally {
            close(three);
            close(five);
        }
    }

    @Test
    void stopsTheNodesWhenTheContextCloses() {
        Set<Long> before = redisServerProcesses();
        TestContext context = testContext(FiveNodes.class);
        List<RedisNode> started = nodes(context).nodes();
        Set<Long> processes = redisServerProcesses();
        processes.removeAll(before);
        assertThat(processes).hasSize(5);
        close(context);
        assertThat(started).noneMatch(RedisNode::isRunning);
        assertThat(started).noneMatch((node) -> RedisNodes.allAnswer(List.of(node.uri())));
        assertThat(redisServerProcesses()).doesNotContainAnyElementsOf(processes);
    }

    @Test
    void stopsTheNodesWhenTheContextFailsToStart() {
        Set<Long> before = redisServerProcesses();
        assertThatIllegalStateException().isThrownBy(() -> testContext(FailingToStart.class).getApplicationContext());
        assertThat(before).containsAll(redisServerProcesses());
    }

    /**
     * The control of the {@code never} default: with the quarantine on, a node that one test restarted does not vote
     * in the tests that follow, since the lock saw its {@code run_id} change.
     */
    @Test
    void letsAPropertyOfTheTestTurnTheRestartQuarantineBackOn() {
        TestContext context = testContext(WithRestartQuarantine.class);
        try {
            ApplicationContext applicationContext = context.getApplicationContext();
            assertThat(applicationContext.getBean(RedlockProperties.class).getRestartQuarantine()).isEqualTo(RestartQuarantine.AUTO);
            RedisNode node = nodes(context).node(0);
            Redlock redlock = applicationContext.getBean(Redlock.class);
            node.restart();
            nodes(context).reset();
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    redlock.nodeStatuses().get(node.hostAndPort()).state()).isEqualTo(NodeStatus.State.QUARANTINED));
        }
        finally {
            close(context);
        }
    }

    private static TestContext testContext(Class<?> testClass) {
        return new TestContextManager(testClass).getTestContext();
    }

    private static RedisNodes nodes(TestContext context) {
        return context.getApplicationContext().getBean(RedisNodes.class);
    }

    private static void close(TestContext context) {
        context.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
    }

    /**
     * The live redis-server processes this JVM started. Debian's {@code redis-server} is a link to
     * {@code redis-check-rdb}, and a server replaces its arguments with its title, so only "redis" is certain.
     */
    private static Set<Long> redisServerProcesses() {
        return ProcessHandle.current().descendants().filter(RedlockNodesContextIntegrationTests::isRedisServer)
                .map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    private static boolean isRedisServer(ProcessHandle process) {
        String command = process.info().command().orElse("");
        return process.isAlive() && (command.contains("redis") || command.contains("valkey"));
    }

    @SpringBootTest
    @RedlockNodes(count = 3)
    static class ThreeNodes {

    }

    @SpringBootTest
    @RedlockNodes(count = 3)
    static class AlsoThreeNodes {

    }

    @SpringBootTest
    @RedlockNodes(count = 5)
    static class FiveNodes {

    }

    @SpringBootTest(properties = "redlock.restart-quarantine=auto")
    @RedlockNodes
    static class WithRestartQuarantine {

    }

    @SpringBootTest(classes = { TestApplication.class, BrokenBean.class })
    @RedlockNodes
    static class FailingToStart {

    }

    @TestConfiguration(proxyBeanMethods = false)
    static class BrokenBean {

        @Bean
        Object brokenAfterTheLockStarted(Redlock redlock) {
            throw new IllegalStateException("A bean that fails after the Redlock connected to its nodes");
        }

    }

}
