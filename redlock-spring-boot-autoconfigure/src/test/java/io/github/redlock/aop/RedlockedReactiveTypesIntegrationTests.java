package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive results of any type Spring's {@code ReactiveAdapterRegistry} knows, not only {@code Mono} and
 * {@code Flux}: the hazard is a method whose result is lazy (a plain {@code Publisher}) being treated as a
 * finished value, so that its lock is released when the method returns, before anyone subscribed and the
 * work ran. On five real nodes.
 */
class RedlockedReactiveTypesIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<NodeKeys> keys = RedisClientExtension.of(redis, NodeKeys::new);

    @Test
    void aPlainPublisherResultHoldsTheLockFromSubscriptionUntilItCompletes() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withBean(Feeds.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.node-timeout=1s")
                .run((context) -> {
                    Publisher<Integer> feed = context.getBean(Feeds.class).feed("1");
                    assertThat(this.keys.get().holding("redlock:feed:1")).as("nodes holding the key before the subscription").isZero();
                    List<Integer> holdingWhileEmitting = new CopyOnWriteArrayList<>();
                    Flux.from(feed).doOnNext((item) -> holdingWhileEmitting.add(this.keys.get().holding("redlock:feed:1")))
                            .blockLast(Duration.ofSeconds(10));
                    assertThat(holdingWhileEmitting).hasSize(3).allSatisfy((nodes) -> assertThat(nodes).isGreaterThanOrEqualTo(3));
                    this.keys.get().awaitGone("redlock:feed:1", Duration.ofSeconds(2));
                });
    }

    static class Feeds {

        @Redlocked(key = "feed:#{#id}", ttl = "10s")
        public Publisher<Integer> feed(String id) {
            return Flux.range(1, 3).delayElements(Duration.ofMillis(20));
        }

    }

}
