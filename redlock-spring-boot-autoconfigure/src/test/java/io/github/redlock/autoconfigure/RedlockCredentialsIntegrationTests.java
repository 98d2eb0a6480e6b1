package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.actuate.endpoint.RedlockEndpoint;
import io.github.redlock.autoconfigure.endpoint.RedlockEndpointAutoConfiguration;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.test.Poll;
import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisNodes;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Rotating credentials on real nodes: a {@link RedisCredentialsProvider} bean authenticates every node, and is asked again
 * at every reconnection. The test rotates the ACL password of the lock's user while a lease is held (the nodes accept
 * both, then only the new one, and every client connection is dropped): the lease extends and releases, new locks are
 * taken, the health is UP. A provider that gives a wrong password makes every node say {@code WRONGPASS}. No password,
 * old, new or wrong, appears in the log, an exception, the health or the endpoint.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockCredentialsIntegrationTests {

    private static final String FIRST = "first-Secret-4711";

    private static final String SECOND = "second-Secret-0815";

    private static final String WRONG = "wrong-Secret-1234";

    @Test
    void locksKeepWorkingAcrossAPasswordRotationAndNoPasswordIsEverPrinted(CapturedOutput output) {
        AtomicReference<String> password = new AtomicReference<>(FIRST);
        AtomicInteger asked = new AtomicInteger();
        RedisCredentialsProvider provider = () -> Mono.fromSupplier(() -> {
            asked.incrementAndGet();
            return RedisCredentials.just("locker", password.get());
        });
        try (RedisNodes nodes = RedisNodes.start(3)) {
            nodes.nodes().forEach((node) -> acl(node, "ACL", "SETUSER", "locker", "on", ">" + FIRST, "~redlock:*", "resetchannels", "&redlock:*", "+@all"));
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class,
                            RedlockEndpointAutoConfiguration.class))
                    .withBean(RedisCredentialsProvider.class, () -> provider)
                    .withPropertyValues("redlock.nodes=" + String.join(",", nodes.uris()), "redlock.node-timeout=2s",
                            "management.endpoints.web.exposure.include=redlock")
                    .run((context) -> {
                        assertThat(context).hasNotFailed();
                        Redlock redlock = context.getBean(Redlock.class);
                        RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
                        RedlockLease held = redlock.acquire("rotating", Duration.ofSeconds(20), Duration.ZERO);
                        assertThat(asked.get()).isGreaterThanOrEqualTo(3);

                        // Rotate: the nodes accept both passwords, the provider gives the new one, then only the new one
                        // is accepted and every connection of the user is dropped, so that each reconnects with it.
                        nodes.nodes().forEach((node) -> acl(node, "ACL", "SETUSER", "locker", ">" + SECOND));
                        password.set(SECOND);
                        nodes.nodes().forEach((node) -> acl(node, "ACL", "SETUSER", "locker", "<" + FIRST));
                        int before = asked.get();
                        nodes.nodes().forEach(RedlockCredentialsIntegrationTests::dropUsersConnections);
                        Poll.until(Duration.ofSeconds(20), () -> asked.get() >= before + 3
                                && redlock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP),
                                () -> "the nodes did not all vote again after the rotation: " + redlock.nodeStatuses());
                        assertThat(held.extend(Duration.ofSeconds(20))).as("the held lease extends over the new connections").isTrue();
                        assertThat(held.release()).isTrue();
                        RedlockLease again = redlock.acquire("rotating", Duration.ofSeconds(20), Duration.ZERO);
                        assertThat(again.release()).isTrue();
                        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

                        // A provider that gives a wrong password: every node says why it cannot connect, without it.
                        password.set(WRONG);
                        nodes.nodes().forEach(RedlockCredentialsIntegrationTests::dropUsersConnections);
                        Poll.until(Duration.ofSeconds(20), () -> redlock.nodeStatuses().values().stream()
                                .allMatch((status) -> status.reason().contains("WRONGPASS")),
                                () -> "the nodes do not say WRONGPASS: " + redlock.nodeStatuses());
                        RedlockAcquisitionException refused = null;
                        try {
                            redlock.acquire("rotating", Duration.ofSeconds(20), Duration.ZERO);
                        }
                        catch (RedlockAcquisitionException ex) {
                            refused = ex;
                        }
                        assertThat(refused).isNotNull();
                        Health down = health.health(true);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        String everything = output.getAll() + refused.getMessage() + down.getDetails()
                                + context.getBean(RedlockEndpoint.class).redlock() + redlock.nodeStatuses();
                        assertThat(everything).contains("WRONGPASS");
                        assertThat(everything).doesNotContain(FIRST).doesNotContain(SECOND).doesNotContain(WRONG);

                        password.set(SECOND);
                        Poll.until(Duration.ofSeconds(20), () -> redlock.nodeStatuses().values().stream()
                                .allMatch((status) -> status.state() == NodeStatus.State.UP),
                                () -> "the nodes did not come back with the right password: " + redlock.nodeStatuses());
                        assertThat(redlock.tryAcquire("rotating", Duration.ofSeconds(5))).hasValueSatisfying((lease) -> assertThat(lease.release()).isTrue());
                    });
            assertThat(output.getAll()).doesNotContain(FIRST).doesNotContain(SECOND).doesNotContain(WRONG);
        }
    }

    @Test
    void aStartUpFailureNeverPrintsThePasswordsOfTheNodeList(CapturedOutput output) {
        try (RedisNodes nodes = RedisNodes.start(1)) {
            String node = "redis://locker:" + FIRST + "@" + nodes.node(0).hostAndPort();
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
                    .withPropertyValues("redlock.nodes=" + node + "," + node + ",redis://:" + SECOND + "@127.0.0.1:notaport")
                    .run((context) -> {
                        assertThat(context).hasFailed();
                        Throwable failure = context.getStartupFailure();
                        StringBuilder text = new StringBuilder(output.getAll());
                        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                            text.append(cause.getMessage()).append(cause);
                        }
                        assertThat(text).contains("****@");
                        assertThat(text.toString()).doesNotContain(FIRST).doesNotContain(SECOND);
                    });
        }
    }

    private static void acl(RedisNode node, String... command) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8);
            for (int i = 1; i < command.length; i++) {
                args.add(command[i]);
            }
            assertThat(connection.sync().dispatch(io.lettuce.core.protocol.CommandType.ACL,
                    new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8), args)).isEqualTo("OK");
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private static void dropUsersConnections(RedisNode node) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().clientKill(KillArgs.Builder.user("locker"));
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

}
