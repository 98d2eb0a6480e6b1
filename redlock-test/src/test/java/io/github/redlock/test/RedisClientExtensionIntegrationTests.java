package io.github.redlock.test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Runs small test classes that use the extension and checks what their clients went through. The small
 * classes are nested, so that Surefire does not run them by itself, and run only when launched from here.
 */
class RedisClientExtensionIntegrationTests {

    private static final List<FakeClient> created = new CopyOnWriteArrayList<>();

    private static volatile boolean launching;

    @BeforeEach
    void forgetEarlierClients() {
        created.clear();
    }

    @Test
    void eachTestGetsItsOwnClient() {
        TestExecutionSummary summary = run(TwoPassingMethods.class);
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
        assertThat(created).hasSize(2).doesNotHaveDuplicates();
        assertThat(created).allSatisfy((client) -> assertThat(client.usedByTest).isTrue());
    }

    @Test
    void theClientIsBuiltFromTheNodesUris() {
        run(TwoPassingMethods.class);
        assertThat(created).isNotEmpty().allSatisfy((client) -> {
            assertThat(client.uris).hasSize(2).allMatch((uri) -> uri.startsWith("redis://127.0.0.1:"));
            assertThat(client.uris).isEqualTo(client.urisSeenByTest);
        });
    }

    @Test
    void theClientIsClosedAfterItsTestBeforeTheNextOneIsBuilt() {
        run(TwoPassingMethods.class);
        assertThat(created).hasSize(2).allSatisfy((client) -> assertThat(client.closed).isTrue());
        assertThat(created.get(1).openClientsWhenBuilt).isZero();
    }

    @Test
    void theClientIsClosedWhenTheTestFails() {
        TestExecutionSummary summary = run(OneFailingMethod.class);
        assertThat(summary.getTestsFailedCount()).isOne();
        assertThat(created).singleElement().satisfies((client) -> assertThat(client.closed).isTrue());
    }

    @Test
    void theClientIsClosedBeforeTheNodesAreReset() {
        run(OneKeyWritingMethod.class);
        assertThat(created).singleElement().satisfies((client) -> assertThat(client.keyExistedWhenClosed).isTrue());
    }

    @Test
    void getFailsOutsideATest() {
        RedisClientExtension<FakeClient> extension = RedisClientExtension.of(RedisNodesExtension.of(1), FakeClient::new);
        assertThatIllegalStateException().isThrownBy(extension::get).withMessageContaining("instance field");
    }

    private static TestExecutionSummary run(Class<?> testClass) {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launching = true;
        try {
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(),
                    listener);
        }
        finally {
            launching = false;
        }
        return listener.getSummary();
    }

    /** Whether a nested class runs because a test here launched it, rather than by a broad test filter. */
    static boolean launchedHere() {
        return launching;
    }

    static final class FakeClient implements AutoCloseable {

        final List<String> uris;

        final long openClientsWhenBuilt;

        volatile boolean usedByTest;

        volatile List<String> urisSeenByTest;

        volatile boolean closed;

        volatile boolean keyExistedWhenClosed;

        FakeClient(List<String> uris) {
            this.uris = uris;
            this.openClientsWhenBuilt = created.stream().filter((client) -> !client.closed).count();
            created.add(this);
        }

        void use(List<String> urisSeenByTest) {
            this.usedByTest = true;
            this.urisSeenByTest = urisSeenByTest;
        }

        @Override
        public void close() throws IOException {
            this.closed = true;
            this.keyExistedWhenClosed = Resp.command(java.net.URI.create(this.uris.get(0)).getPort(), 1000, "EXISTS", "k")
                    .equals(":1");
        }

    }

    @EnabledIf("io.github.redlock.test.RedisClientExtensionIntegrationTests#launchedHere")
    static class TwoPassingMethods {

        @RegisterExtension
        static final RedisNodesExtension redis = RedisNodesExtension.of(2);

        @RegisterExtension
        final RedisClientExtension<FakeClient> client = RedisClientExtension.of(redis, FakeClient::new);

        @Test
        void first() {
            this.client.get().use(redis.uris());
        }

        @Test
        void second() {
            this.client.get().use(redis.uris());
        }

    }

    @EnabledIf("io.github.redlock.test.RedisClientExtensionIntegrationTests#launchedHere")
    static class OneFailingMethod {

        @RegisterExtension
        static final RedisNodesExtension redis = RedisNodesExtension.of(1);

        @RegisterExtension
        final RedisClientExtension<FakeClient> client = RedisClientExtension.of(redis, FakeClient::new);

        @Test
        void fails() {
            this.client.get().use(redis.uris());
            throw new AssertionError("failed on purpose");
        }

    }

    @EnabledIf("io.github.redlock.test.RedisClientExtensionIntegrationTests#launchedHere")
    static class OneKeyWritingMethod {

        @RegisterExtension
        static final RedisNodesExtension redis = RedisNodesExtension.of(1);

        @RegisterExtension
        final RedisClientExtension<FakeClient> client = RedisClientExtension.of(redis, FakeClient::new);

        @Test
        void writesAKey() throws IOException {
            this.client.get().use(redis.uris());
            Resp.command(redis.node(0).port(), 1000, "SET", "k", "v");
        }

    }

}
