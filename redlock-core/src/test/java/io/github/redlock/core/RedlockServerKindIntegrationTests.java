package io.github.redlock.core;

import java.util.List;

import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which server the integration tests of this run start: a Valkey run ({@code redlock.redis-server} naming a
 * {@code valkey-server}, as the {@code valkey} profile sets it) really runs Valkey, and a default run Redis. Prints the
 * version, so that a build log says which server the suite ran against.
 */
class RedlockServerKindIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(1);

    @Test
    void theNodesRunTheServerThisRunAskedFor() {
        String configured = System.getProperty("redlock.redis-server", String.valueOf(System.getenv("REDLOCK_REDIS_SERVER")));
        try (NodeInspector inspector = new NodeInspector(List.of(redis.node(0).uri()))) {
            String info = inspector.info(0, "server");
            String version = info.lines().filter((line) -> line.startsWith("valkey_version:") || line.startsWith("redis_version:"))
                    .reduce((first, second) -> first + " " + second).orElse("no version");
            System.out.println("The integration tests run against " + version + " (" + configured + ")");
            if (configured.contains("valkey")) {
                assertThat(info).contains("valkey_version:8");
            }
            else {
                assertThat(info).doesNotContain("valkey_version:");
            }
        }
    }

}
