package io.github.redlock.autoconfigure;

import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import io.github.redlock.actuate.endpoint.RedlockEndpointWebExtension;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.redlock.autoconfigure.RevokeTestSupport.LOCK;
import static io.github.redlock.autoconfigure.RevokeTestSupport.holdOnEveryNode;
import static io.github.redlock.autoconfigure.RevokeTestSupport.send;
import static io.github.redlock.autoconfigure.RevokeTestSupport.values;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator's revoke over HTTP, {@code DELETE /actuator/redlock/{name}}, with {@code redlock.endpoint.revoke.enabled=true}
 * behind a real Spring Security filter chain, against three real nodes: only an allowed role frees a lock that another
 * client holds, the answer counts the nodes, and every call is logged with who asked.
 */
@SpringBootTest(classes = RedlockRevokeEndpointIntegrationTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // A patient node timeout: a revoke counts only the nodes that answered within it, and a loaded machine misses 50 ms.
        properties = { "redlock.restart-quarantine=never", "management.endpoints.web.exposure.include=redlock",
                "redlock.endpoint.revoke.enabled=true", "redlock.node-timeout=2s" })
@ExtendWith(OutputCaptureExtension.class)
class RedlockRevokeEndpointIntegrationTests {

    static final String OPERATOR = "alice";

    static final String DEVELOPER = "bob";

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
    private RedlockEndpointWebExtension extension;

    @Test
    void anUnauthenticatedDeleteIsRefused() throws Exception {
        RedlockLease held = holdOnEveryNode(this.holder.get(), redis.uris(), LOCK);

        assertThat(send(this.environment, "DELETE", "/actuator/redlock/" + LOCK, null).statusCode()).isEqualTo(401);

        assertThat(values(redis.uris(), "redlock:" + LOCK)).containsOnly(held.token());
    }

    @Test
    void aUserWithoutTheOperatorsRoleIsRefused() throws Exception {
        RedlockLease held = holdOnEveryNode(this.holder.get(), redis.uris(), LOCK);

        assertThat(send(this.environment, "DELETE", "/actuator/redlock/" + LOCK, DEVELOPER).statusCode()).isEqualTo(403);

        assertThat(values(redis.uris(), "redlock:" + LOCK)).containsOnly(held.token());
    }

    @Test
    void anOperatorFreesTheLockOnEveryNodeAndASecondCallFindsNothing(CapturedOutput output) throws Exception {
        holdOnEveryNode(this.holder.get(), redis.uris(), LOCK);

        HttpResponse<String> revoked = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK, OPERATOR);

        assertThat(revoked.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(revoked.body(), "$.nodes")).isEqualTo(3);
        assertThat((String) JsonPath.read(revoked.body(), "$.name")).isEqualTo(LOCK);
        assertThat(values(redis.uris(), "redlock:" + LOCK)).containsOnlyNulls();
        assertThat(output).contains("Revoked the lock 'nightly-job' at the request of alice: freed on 3 of 3 nodes");

        HttpResponse<String> again = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK, OPERATOR);
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat((Integer) JsonPath.read(again.body(), "$.nodes")).isZero();
        assertThat(output).contains("Revoke of the lock 'nightly-job' at the request of alice: no node held it");
    }

    @Test
    void anExpectedHolderFreesTheLockOnlyFromThatHolderAndA409NamesWhoHoldsItInstead(CapturedOutput output) throws Exception {
        RedlockLease held = holdOnEveryNode(this.holder.get(), redis.uris(), LOCK);

        HttpResponse<String> other = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK + "?expectedHolder=nightly@worker-1:17",
                OPERATOR);

        assertThat(other.statusCode()).as(other.body()).isEqualTo(409);
        assertThat((String) JsonPath.read(other.body(), "$.holder")).isEqualTo(RevokeTestSupport.HOLDER_ID);
        assertThat((Integer) JsonPath.read(other.body(), "$.nodes")).isZero();
        assertThat(values(redis.uris(), "redlock:" + LOCK)).as("the lock another holder has").containsOnly(held.token());
        assertThat(output).contains("Refused to revoke the lock 'nightly-job' at the request of alice: expected holder "
                + "nightly@worker-1:17, but nightly@worker-3:901 holds it now");

        HttpResponse<String> expected = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK + "?expectedHolder="
                + RevokeTestSupport.HOLDER_ID, OPERATOR);

        assertThat(expected.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(expected.body(), "$.nodes")).isEqualTo(3);
        assertThat(values(redis.uris(), "redlock:" + LOCK)).containsOnlyNulls();
        HttpResponse<String> gone = send(this.environment, "DELETE", "/actuator/redlock/" + LOCK + "?expectedHolder="
                + RevokeTestSupport.HOLDER_ID, OPERATOR);
        assertThat(gone.statusCode()).isEqualTo(404);
    }

    @Test
    void aBlankNameIsABadRequestThatSaysWhatWasWrong(CapturedOutput output) throws Exception {
        HttpResponse<String> blank = send(this.environment, "DELETE", "/actuator/redlock/%20", OPERATOR);

        assertThat(blank.statusCode()).isEqualTo(400);
        assertThat(output).contains("Refused to revoke the lock ' ' at the request of alice: key must not be null or blank");
    }

    @Test
    void theReadOperationStaysBesideTheRevoke() throws Exception {
        HttpResponse<String> read = send(this.environment, "GET", "/actuator/redlock", OPERATOR);

        assertThat(read.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(read.body(), "$.quorum")).isEqualTo(2);
    }

    @Test
    void aCallWithoutAPrincipalIsLoggedAsAnonymous(CapturedOutput output) throws Exception {
        holdOnEveryNode(this.holder.get(), redis.uris(), "report");

        assertThat(this.extension.revoke(SecurityContext.NONE, "report", null).getStatus()).isEqualTo(200);

        assertThat(output).contains("Revoked the lock 'report' at the request of anonymous: freed on 3 of 3 nodes");
    }

    /**
     * A web application with Actuator and Spring Security: the operator ({@code alice}, role {@code LOCK_ADMIN}) may
     * DELETE on the {@code redlock} endpoint, any other user ({@code bob}) only read; HTTP basic, no session, so no
     * CSRF token (as for any API called by tools).
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception { // as docs/observability.md shows it
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests((requests) -> requests
                            .requestMatchers(HttpMethod.DELETE, "/actuator/redlock/*").hasRole("LOCK_ADMIN")
                            .anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .csrf((csrf) -> csrf.disable())
                    .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername(OPERATOR).password("{noop}" + OPERATOR + "-password").roles("LOCK_ADMIN").build(),
                    User.withUsername(DEVELOPER).password("{noop}" + DEVELOPER + "-password").roles("DEVELOPER").build());
        }

    }

}
