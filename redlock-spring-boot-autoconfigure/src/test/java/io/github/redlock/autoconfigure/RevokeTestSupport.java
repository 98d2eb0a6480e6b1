package io.github.redlock.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the revoke's HTTP tests share: a holder of a lock in another instance of the application, requests to the
 * application with a user's basic credentials, and the lock's key as each node has it.
 */
final class RevokeTestSupport {

    /** The lock the tests revoke, held for longer than any test runs. */
    static final String LOCK = "nightly-job";

    private RevokeTestSupport() {
    }

    /** Another instance of the application: the holder whose work is gone, as far as the operator knows. */
    /** The instance id of the other instance that holds the locks. */
    static final String HOLDER_ID = "nightly@worker-3:901";

    static RedisClientExtension<Redlock> holder(RedisNodesExtension redis) {
        return RedisClientExtension.of(redis,
                (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).instanceId(HOLDER_ID).build());
    }

    /** Acquires the lock for a minute and waits until every node has it (an acquisition returns at a quorum). */
    static RedlockLease holdOnEveryNode(Redlock holder, List<String> uris, String name) throws InterruptedException {
        RedlockLease held = holder.acquire(name, Duration.ofSeconds(60), Duration.ZERO);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!values(uris, "redlock:" + name).stream().allMatch(held.token()::equals) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(values(uris, "redlock:" + name)).containsOnly(held.token());
        return held;
    }

    /**
     * Sends a request to the application, with the user's basic credentials (password: the name, then
     * {@code -password}) when one is given.
     */
    static HttpResponse<String> send(Environment environment, String method, String path, @Nullable String user) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + environment.getProperty("local.server.port") + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        if (user != null) {
            String credentials = user + ":" + user + "-password";
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        System.out.println(method + " " + path + " as " + user + " -> " + response.statusCode() + " " + response.body());
        return response;
    }

    /** The key's value on each node, in node order (null where absent), read by a connection of the test's own. */
    static List<String> values(List<String> uris, String key) {
        RedisClient client = RedisClient.create();
        try {
            return uris.stream().map((uri) -> {
                try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(uri))) {
                    return connection.sync().get(key);
                }
            }).toList();
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

}
