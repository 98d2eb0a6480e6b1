package io.github.redlock.autoconfigure;

import java.net.http.HttpResponse;

import io.github.redlock.actuate.endpoint.RedlockEndpointWebExtension;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.redlock.autoconfigure.RedlockRevokeEndpointIntegrationTests.OPERATOR;
import static io.github.redlock.autoconfigure.RevokeTestSupport.LOCK;
import static io.github.redlock.autoconfigure.RevokeTestSupport.holdOnEveryNode;
import static io.github.redlock.autoconfigure.RevokeTestSupport.send;
import static io.github.redlock.autoconfigure.RevokeTestSupport.values;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The revoke is off by default: without {@code redlock.endpoint.revoke.enabled=true} the operation does not exist, so
 * not even the operator's DELETE frees a lock, while the endpoint still reads. The application and its security are
 * {@link RedlockRevokeEndpointIntegrationTests}'.
 */
@SpringBootTest(classes = RedlockRevokeEndpointIntegrationTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "redlock.restart-quarantine=never", "management.endpoints.web.exposure.include=redlock" })
class RedlockRevokeDisabledIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @DynamicPropertySource
    static void nodes(DynamicPropertyRegistry registry) {
        registry.add("redlock.nodes", () -> String.join(",", redis.uris()));
    }

    @RegisterExtension
    final RedisClientExtension<Redlock> holder = RevokeTestSupport.holder(redis);

    @Autowired
    private Environment environment;

    @Autowired
    private ApplicationContext context;

    @Test
    void theOperatorsDeleteFreesNothingWhileTheRevokeIsOff() throws Exception {
        RedlockLease held = holdOnEveryNode(this.holder.get(), redis.uris(), LOCK);

        HttpResponse<String> refused = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK, OPERATOR);

        assertThat(refused.statusCode()).as("no such operation").isIn(404, 405);
        assertThat(values(redis.uris(), "redlock:" + LOCK)).containsOnly(held.token());
        assertThat(this.context.getBeansOfType(RedlockEndpointWebExtension.class)).isEmpty();
        assertThat(send(this.environment, "GET", "/actuator/redlock", OPERATOR).statusCode()).isEqualTo(200);
    }

}
