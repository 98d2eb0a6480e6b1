package io.github.redlock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link RedlockContext#currentLease()} in annotated methods, with {@code redlock.fencing=true}: the innermost
 * lease, the outer one in a re-entrant call, the lease while an asynchronous method's body runs, and nothing
 * outside.
 */
class RedlockContextIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class))
                .withUserConfiguration(AccountsConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.fencing=true",
                        "redlock.node-timeout=1s");
    }

    @Test
    void anAnnotatedMethodSeesItsLeaseWithAFencingToken() {
        runner().run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            RedlockLease lease = accounts.settle("a");
            assertThat(lease.key()).isEqualTo("account:a");
            assertThat(accounts.tokens()).hasSize(1).allSatisfy((token) -> assertThat(token).isPositive());
        });
    }

    @Test
    void successiveCallsSeeRisingFencingTokens() {
        runner().run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            for (int i = 0; i < 10; i++) {
                accounts.settle("a");
            }
            assertThat(accounts.tokens()).hasSize(10).isSorted().doesNotHaveDuplicates();
        });
    }

    @Test
    void aNestedCallOnAnotherKeySeesItsOwnLeaseAndTheOuterOneAgainAfterIt() {
        runner().run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            List<String> seen = accounts.transfer("a", "b");
            assertThat(seen).containsExactly("account:a", "account:b", "account:a");
        });
    }

    @Test
    void aReentrantCallOnTheSameKeySeesTheOuterLease() {
        runner().run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            List<RedlockLease> seen = accounts.settleTwice("a");
            assertThat(seen.get(1)).isSameAs(seen.get(0));
        });
    }

    @Test
    void anAsynchronousMethodSeesItsLeaseWhileItsBodyRuns() {
        runner().run((context) -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.settleLater("c").join()).isEqualTo("account:c");
            assertThat(accounts.settleReactively("d").block()).isEqualTo("account:d");
        });
    }

    @Test
    void outsideAnnotatedMethodsThereIsNoLease() {
        runner().run((context) -> {
            context.getBean(Accounts.class).settle("a");
            assertThat(RedlockContext.currentLease()).isEmpty();
        });
    }

    @Test
    void withoutFencingTheLeaseSaysHowToTurnItOn() {
        runner().withPropertyValues("redlock.fencing=false").run((context) -> {
            RedlockLease lease = context.getBean(Accounts.class).settle("a");
            assertThatIllegalStateException().isThrownBy(lease::fencingToken).withMessageContaining("redlock.fencing=true");
        });
    }

    @Test
    void aLeaseMadeCurrentByHandIsSeenUntilItsScopeCloses() {
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).build();
                RedlockLease lease = redlock.acquire("by-hand", java.time.Duration.ofSeconds(5), java.time.Duration.ZERO)) {
            try (RedlockContext.Scope scope = RedlockContext.open(lease)) {
                assertThat(RedlockContext.currentLease()).containsSame(lease);
            }
            assertThat(RedlockContext.currentLease()).isEmpty();
        }
    }

    @Test
    void scopesClosedOutOfOrderOrOnAnotherThreadAreRefusedAndChangeNothing() throws Exception {
        try (Redlock redlock = Redlock.builder().nodes(redis.uris()).build();
                RedlockLease first = redlock.acquire("first", java.time.Duration.ofSeconds(5), java.time.Duration.ZERO);
                RedlockLease second = redlock.acquire("second", java.time.Duration.ofSeconds(5), java.time.Duration.ZERO)) {
            RedlockContext.Scope outer = RedlockContext.open(first);
            RedlockContext.Scope inner = RedlockContext.open(second);
            assertThatIllegalStateException().isThrownBy(outer::close).withMessageContaining("reverse order");
            assertThat(CompletableFuture.runAsync(inner::close).handle((done, failure) -> failure).get())
                    .hasMessageContaining("thread that opened it");
            assertThat(RedlockContext.currentLease()).containsSame(second);
            inner.close();
            inner.close(); // again: nothing
            assertThat(RedlockContext.currentLease()).containsSame(first);
            outer.close();
            assertThat(RedlockContext.currentLease()).isEmpty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AccountsConfiguration {

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

    }

    static class Accounts {

        private final List<Long> tokens = new ArrayList<>();

        /** The tokens seen by {@link #settle}, through the proxy (a field read on the proxy would not see them). */
        List<Long> tokens() {
            return this.tokens;
        }

        @Autowired
        @Lazy
        private Accounts self;

        @Redlocked(key = "account:#{#id}", ttl = "10s")
        RedlockLease settle(String id) {
            RedlockLease lease = RedlockContext.currentLease().orElseThrow();
            if (fencing(lease)) {
                this.tokens.add(lease.fencingToken());
            }
            return lease;
        }

        @Redlocked(key = "account:#{#from}", ttl = "10s")
        List<String> transfer(String from, String to) {
            List<String> seen = new ArrayList<>();
            seen.add(RedlockContext.currentLease().orElseThrow().key());
            seen.add(this.self.settle(to).key());
            seen.add(RedlockContext.currentLease().orElseThrow().key());
            return seen;
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s")
        List<RedlockLease> settleTwice(String id) {
            return List.of(RedlockContext.currentLease().orElseThrow(), this.self.settle(id));
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s")
        CompletableFuture<String> settleLater(String id) {
            Optional<RedlockLease> lease = RedlockContext.currentLease();
            return CompletableFuture.supplyAsync(() -> lease.orElseThrow().key());
        }

        @Redlocked(key = "account:#{#id}", ttl = "10s")
        Mono<String> settleReactively(String id) {
            Optional<RedlockLease> lease = RedlockContext.currentLease();
            return Mono.fromSupplier(() -> lease.orElseThrow().key());
        }

        private static boolean fencing(RedlockLease lease) {
            try {
                lease.fencingToken();
                return true;
            }
            catch (IllegalStateException ex) {
                return false;
            }
        }

    }

}
