package io.github.redlock.autoconfigure;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.aop.RedlockConfigurationException;
import io.github.redlock.connection.RedlockConnectionFactories;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockClientResources;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.observation.DefaultRedlockObservationConvention;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@ExtendWith(OutputCaptureExtension.class)
class RedlockAutoConfigurationIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class));

    private static String[] nodes(List<String> uris) {
        List<String> properties = new ArrayList<>();
        for (int i = 0; i < uris.size(); i++) {
            properties.add("redlock.nodes[" + i + "]=" + uris.get(i));
        }
        return properties.toArray(String[]::new);
    }

    @Test
    void locksOverTheConfiguredNodesWithoutRegisteringConnectionFactoryBeans() {
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.key-prefix=app:").run((context) -> {
            assertThat(context).hasSingleBean(Redlock.class).hasSingleBean(RedlockConnectionFactories.class)
                    .doesNotHaveBean(RedisConnectionFactory.class);
            Redlock redlock = context.getBean(Redlock.class);
            RedlockLease lease = redlock.acquire("job", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(redlock.tryAcquire("job", Duration.ofSeconds(10))).isEmpty();
            Map<String, LettuceConnectionFactory> factories = context.getBean(RedlockConnectionFactories.class).factories();
            assertThat(factories).hasSize(3);
            for (LettuceConnectionFactory factory : factories.values()) {
                try (var connection = factory.getConnection()) {
                    assertThat(new String(connection.stringCommands().get("app:job".getBytes()))).isEqualTo(lease.token());
                }
            }
            assertThat(lease.release()).isTrue();
        });
    }

    @Test
    void observesLockOperationsWithTheApplicationsObservationRegistry() {
        this.runner.withPropertyValues(nodes(redis.uris())).withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .run((context) -> {
                    context.getBean(Redlock.class).acquire("observed", Duration.ofSeconds(10), Duration.ZERO).release();
                    TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
                    awaitObservations(registry, DefaultRedlockObservationConvention.NAME, 2);
                    assertThat(registry).hasAnObservationWithAKeyValue("redlock.operation", "acquire")
                            .hasAnObservationWithAKeyValue("redlock.operation", "release");
                });
    }

    @Test
    void usesTheApplicationsObservationConvention() {
        RedlockObservationConvention renamed = new DefaultRedlockObservationConvention() {

            @Override
            public String getName() {
                return "app.lock";
            }

        };
        this.runner.withPropertyValues(nodes(redis.uris())).withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withBean(RedlockObservationConvention.class, () -> renamed).run((context) -> {
                    context.getBean(Redlock.class).acquire("observed", Duration.ofSeconds(10), Duration.ZERO).release();
                    awaitObservations((TestObservationRegistry) context.getBean(ObservationRegistry.class), "app.lock", 2);
                });
    }

    @Test
    void bootsObservationPropertiesSwitchTheObservationsOff() {
        ApplicationContextRunner withBootsRegistry = new ApplicationContextRunner().withConfiguration(
                AutoConfigurations.of(ObservationAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withPropertyValues(nodes(redis.uris())).withBean(StoppedObservations.class, StoppedObservations::new);
        withBootsRegistry.run((context) -> {
            context.getBean(Redlock.class).acquire("observed", Duration.ofSeconds(10), Duration.ZERO).release();
            StoppedObservations stopped = context.getBean(StoppedObservations.class);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (stopped.names.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(stopped.names).as("observed through Boot's registry").containsExactly("redlock.lock", "redlock.lock");
        });
        withBootsRegistry.withPropertyValues("management.observations.enable.redlock=false").run((context) -> {
            Redlock redlock = context.getBean(Redlock.class);
            redlock.acquire("observed", Duration.ofSeconds(10), Duration.ZERO).release();
            Thread.sleep(500); // time for observations to stop on I/O threads, as they did within it above
            assertThat(context.getBean(StoppedObservations.class).names).isEmpty();
        });
    }

    /** An observation handler bean, which Boot's registry applies: collects the names of stopped observations. */
    static final class StoppedObservations implements ObservationHandler<Observation.Context> {

        final List<String> names = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            this.names.add(context.getName());
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

    }

    /** Waits until the registry saw {@code count} observations of that name: they stop on I/O threads. */
    private static void awaitObservations(TestObservationRegistry registry, String name, int count) {
        Poll.untilPasses(Duration.ofSeconds(5), () -> assertThat(registry).hasNumberOfObservationsWithNameEqualTo(name, count));
    }

    @Test
    void isSwitchedOffByRedlockEnabledFalse() {
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Redlock.class)
                        .doesNotHaveBean(RedlockConnectionFactories.class));
    }

    @Test
    void backsOffWithoutSpringDataRedis() {
        this.runner.withPropertyValues(nodes(redis.uris())).withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class))
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Redlock.class));
    }

    @Test
    void backsOffFromTheApplicationsOwnRedlock() {
        this.runner.withPropertyValues(nodes(redis.uris()))
                .withBean("myRedlock", Redlock.class, () -> Redlock.builder().nodes(redis.uris()).keyPrefix("mine:").build())
                .run((context) -> assertThat(context).hasSingleBean(Redlock.class).hasBean("myRedlock"));
    }

    @Test
    void customizersShapeTheSharedLettuceResources() {
        this.runner.withPropertyValues(nodes(redis.uris()))
                .withBean(RedlockClientResourcesBuilderCustomizer.class, () -> (builder) -> builder.computationThreadPoolSize(3))
                .run((context) -> {
                    assertThat(context.getBean(RedlockClientResources.class).resources().computationThreadPoolSize()).isEqualTo(3);
                    assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying(RedlockLease::release);
                });
    }

    @Test
    void theApplicationsOwnLettuceResourcesReplaceTheStarters() {
        RedlockClientResources own = RedlockClientResources.create((builder) -> builder.ioThreadPoolSize(2));
        try {
            this.runner.withPropertyValues(nodes(redis.uris())).withBean(RedlockClientResources.class, () -> own).run((context) -> {
                assertThat(context).getBean(RedlockClientResources.class).isSameAs(own);
                assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).hasValueSatisfying(RedlockLease::release);
            });
        }
        finally {
            own.close();
        }
    }

    @Test
    void connectionDetailsBeanSuppliesTheNodesInsteadOfProperties() {
        List<String> uris = redis.uris();
        this.runner.withBean(RedlockConnectionDetails.class, () -> () -> uris).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(PropertiesRedlockConnectionDetails.class);
            assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).isPresent();
        });
    }

    @Test
    void missingNodesFailStartUpWithWhatToWrite() {
        this.runner.run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalArgumentException.class);
            InvalidConfigurationPropertyValueException failure = ConfigurationFailures.findProperty(context.getStartupFailure());
            assertThat(failure.getName()).isEqualTo("redlock.nodes");
            assertThat(failure.getReason()).contains("redlock.nodes is missing or empty", "redlock:", "nodes:", "- redis://");
        });
    }

    @Test
    void everyLockNamesItsHolderAsTheApplicationsNameOnItsHostUnlessAnInstanceIdIsSet() {
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("spring.application.name=order service").run((context) -> {
            RedlockLease lease = context.getBean(Redlock.class).acquire("named", Duration.ofSeconds(10), Duration.ZERO);
            // The name's space cannot be in a token: it becomes _.
            assertThat(lease.token()).startsWith("order_service@").contains(":" + ProcessHandle.current().pid() + ":");
            assertThat(context.getBean(Redlock.class).inspect("named").holder()).isEqualTo(Redlock.defaultInstanceId("order service"));
            assertThat(lease.release()).isTrue();
        });
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.instance-id=orders-7").run((context) -> {
            RedlockLease lease = context.getBean(Redlock.class).acquire("named", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(lease.token()).startsWith("orders-7:");
            assertThat(lease.release()).isTrue();
        });
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.instance-id=orders 7").run((context) -> {
            InvalidConfigurationPropertyValueException failure = ConfigurationFailures.findProperty(context.getStartupFailure());
            assertThat(failure.getName()).isEqualTo("redlock.instance-id");
            assertThat(failure.getValue()).isEqualTo("orders 7");
            assertThat(failure.getReason()).contains("printable ASCII characters without spaces");
        });
    }

    @Test
    void malformedNodeFailsStartUpNamingTheEntry() {
        this.runner.withPropertyValues("redlock.nodes=redis://127.0.0.1:1,localhost:6379").run((context) -> {
            InvalidConfigurationPropertyValueException failure = ConfigurationFailures.findProperty(context.getStartupFailure());
            assertThat(failure.getName()).isEqualTo("redlock.nodes");
            assertThat(failure.getValue()).isEqualTo(java.util.List.of("redis://127.0.0.1:1", "localhost:6379"));
            assertThat(failure.getReason()).startsWith("nodes[1] 'localhost:6379' is not a Redis URI").contains("redis://10.0.0.1:6379");
        });
    }

    @Test
    void unsetPropertiesLeaveTheCoresDefaultsAndSetOnesReachTheCore() {
        this.runner.withPropertyValues(nodes(redis.uris())).run((context) -> {
            Redlock redlock = context.getBean(Redlock.class);
            assertThat(redlock.maxTtl()).isEqualTo(Duration.ofSeconds(60));
            RedlockLease lease = redlock.acquire("defaults", Duration.ofSeconds(10), Duration.ZERO);
            try (var connection = context.getBean(RedlockConnectionFactories.class).factories().values().iterator().next().getConnection()) {
                assertThat(connection.keyCommands().exists("redlock:defaults".getBytes())).isTrue();
            }
            assertThatIllegalStateException().isThrownBy(lease::fencingToken); // fencing is off by default
            assertThat(lease.release()).isTrue();
        });
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.max-ttl=90s", "redlock.fencing=true")
                .run((context) -> {
                    Redlock redlock = context.getBean(Redlock.class);
                    assertThat(redlock.maxTtl()).isEqualTo(Duration.ofSeconds(90));
                    try (RedlockLease lease = redlock.acquire("set", Duration.ofSeconds(10), Duration.ZERO)) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    /** A start-up failure names the node at fault, but never prints a node's password (its URI's user-info is masked). */
    @Test
    void aFailureAboutTheNodesNeverPrintsTheirPasswords() {
        String port = redis.uris().get(0).substring(redis.uris().get(0).lastIndexOf(':') + 1);
        for (String nodes : List.of("redis://:s3cret-pass@127.0.0.1:" + port + ",redis://:s3cret-pass@127.0.0.1:" + port,
                "redis://app:s3cret-pass@127.0.0.1:" + port + ",http://app:s3cret-pass@127.0.0.1:" + port)) {
            this.runner.withPropertyValues("redlock.nodes=" + nodes).run((context) -> {
                Throwable failure = context.getStartupFailure();
                InvalidConfigurationPropertyValueException invalid = ConfigurationFailures.findProperty(failure);
                assertThat(invalid.getName()).isEqualTo("redlock.nodes");
                StringBuilder printed = new StringBuilder(String.valueOf(invalid.getValue()));
                for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                    printed.append('\n').append(cause);
                }
                assertThat(printed).as(nodes).doesNotContain("s3cret-pass").contains("127.0.0.1");
            });
        }
    }

    @Test
    void invalidSettingFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues(nodes(redis.uris())).withPropertyValues("redlock.clock-drift-factor=2").run((context) -> {
            InvalidConfigurationPropertyValueException failure = ConfigurationFailures.findProperty(context.getStartupFailure());
            assertThat(failure.getName()).isEqualTo("redlock.clock-drift-factor");
            assertThat(failure.getValue()).isEqualTo(2.0);
            assertThat(failure.getReason()).startsWith("clockDriftFactor must be at least 0 and below 1");
        });
    }

    @Test
    void warnsAboutFewerThanThreeOrAnEvenNumberOfNodes(CapturedOutput output) {
        this.runner.withPropertyValues(nodes(redis.uris().subList(0, 2))).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("redlock.nodes lists 2 node(s): with fewer than 3 independent masters");
        });
        List<String> four = new ArrayList<>(redis.uris());
        four.add("redis://127.0.0.1:1");
        this.runner.withPropertyValues(nodes(four)).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("redlock.nodes lists an even number of nodes (4): the quorum is 3");
        });
    }

    @Test
    void unreachableNodesAtStartUpDoNotStopTheApplication() {
        redis.node(0).kill();
        redis.node(1).kill();
        this.runner.withPropertyValues(nodes(redis.uris())).run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(Redlock.class);
            assertThat(context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5))).isEmpty();
            redis.node(0).restart();
            redis.node(1).restart();
            // The nodes join once they are reachable: the lock works again without a restart of the application. (A client
            // that started while they were down admits a node only once it reads two of the others: all three, here.)
            io.github.redlock.test.RedisNode node = redis.node(0);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            boolean acquired = false;
            while (!acquired && System.nanoTime() < deadline) {
                acquired = context.getBean(Redlock.class).tryAcquire("k", Duration.ofSeconds(5)).isPresent();
                Thread.sleep(50);
            }
            assertThat(acquired).as("acquired after %s came back", node).isTrue();
        });
    }

    @Test
    void theApplicationsOwnRedisTemplateKeepsWorkingBesideTheLock() {
        this.runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues(nodes(redis.uris()))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.node(2).port(),
                        "spring.data.redis.database=3")
                .run((context) -> {
                    assertThat(context).hasSingleBean(RedisConnectionFactory.class).hasSingleBean(Redlock.class);
                    StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
                    template.opsForValue().set("greeting", "hello");
                    assertThat(template.opsForValue().get("greeting")).isEqualTo("hello");
                    RedlockLease lease = context.getBean(Redlock.class).acquire("k", Duration.ofSeconds(10), Duration.ZERO);
                    assertThat(template.hasKey("redlock:k")).isFalse(); // other database, untouched by the lock
                    assertThat(lease.release()).isTrue();
                    assertThat(template.opsForValue().get("greeting")).isEqualTo("hello");
                });
    }

    @Test
    void everyPropertyIsDescribedInTheConfigurationMetadata() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String> names = JsonPath.read(json, "$.properties[*].name");
            List<String> described = JsonPath.read(json, "$.properties[?(@.description)].name");
            assertThat(names).contains("redlock.enabled", "redlock.nodes", "redlock.default-ttl", "redlock.default-wait-time",
                    "redlock.node-timeout", "redlock.clock-drift-factor", "redlock.retry-delay", "redlock.key-prefix",
                    "redlock.acquisition-budget");
            assertThat(described).containsExactlyInAnyOrderElementsOf(names);
        }
    }


}
