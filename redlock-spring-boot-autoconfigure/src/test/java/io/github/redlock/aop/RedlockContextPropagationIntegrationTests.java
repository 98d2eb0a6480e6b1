package io.github.redlock.aop;

import java.util.concurrent.CompletableFuture;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.RedlockContextAccessor;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.reactor.autoconfigure.ReactorAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedlockContext#currentLease()} follows the thread hops that Spring propagates context across, through
 * {@link RedlockContextAccessor}: an {@code @Async} method on Boot's executor with
 * {@code spring.task.execution.propagate-context=true}, and Reactor operators on other schedulers with
 * {@code spring.reactor.context-propagation=auto}, both in a blocking annotated method's own publishers and in an
 * annotated method's returned publisher. Each control shows that without the setting, or without the accessor,
 * the lease does not follow: the tests would pass on nothing.
 */
class RedlockContextPropagationIntegrationTests {

    private static final String NONE = "none";

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(3);

    @AfterEach
    void resetReactor() {
        Hooks.disableAutomaticContextPropagation(); // ReactorAutoConfiguration turns it on JVM-wide
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                        TaskExecutionAutoConfiguration.class, ReactorAutoConfiguration.class))
                .withUserConfiguration(JobsConfiguration.class)
                .withPropertyValues("redlock.nodes=" + String.join(",", redis.uris()), "redlock.node-timeout=1s");
    }

    @Test
    void theLeaseFollowsAnAsyncMethodOnAContextPropagatingExecutor() {
        runner().withPropertyValues("spring.task.execution.propagate-context=true").run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.runAsync("a")).startsWith("job:a on task-");
            assertThat(RedlockContext.currentLease()).isEmpty();
            assertThat(context.getBean(Reports.class).currentKey().join()).startsWith(NONE); // nothing outside
        });
    }

    @Test
    void withoutContextPropagationTheAsyncMethodSeesNoLease() {
        runner().run((context) -> assertThat(context.getBean(Jobs.class).runAsync("a")).startsWith(NONE + " on task-"));
    }

    @Test
    void withoutTheAccessorTheAsyncMethodSeesNoLease() {
        withoutAccessor(() -> runner().withPropertyValues("spring.task.execution.propagate-context=true")
                .run((context) -> assertThat(context.getBean(Jobs.class).runAsync("a")).startsWith(NONE + " on task-")));
    }

    @Test
    void theLeaseFollowsReactorOperatorsOnOtherSchedulersInABlockingMethod() {
        runner().withPropertyValues("spring.reactor.context-propagation=auto").run((context) -> {
            assertThat(context.getBean(Jobs.class).runBlocking("b")).isEqualTo("job:b");
            assertThat(Mono.fromSupplier(Jobs::currentKey).subscribeOn(Schedulers.parallel()).block()).isEqualTo(NONE);
        });
    }

    @Test
    void theLeaseFollowsTheOperatorsOfAnAnnotatedMethodsPublisher() {
        runner().withPropertyValues("spring.reactor.context-propagation=auto").run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.runMono("c").block()).isEqualTo("job:c");
            assertThat(jobs.runFlux("d").collectList().block()).containsExactly("job:d", "job:d", "job:d");
        });
    }

    @Test
    void withoutAutomaticPropagationReactorOperatorsSeeNoLease() {
        runner().withPropertyValues("spring.reactor.context-propagation=limited").run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.runBlocking("b")).isEqualTo(NONE);
            assertThat(jobs.runMono("c").block()).isEqualTo(NONE);
        });
    }

    @Test
    void withoutTheAccessorReactorOperatorsSeeNoLease() {
        withoutAccessor(() -> runner().withPropertyValues("spring.reactor.context-propagation=auto").run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.runBlocking("b")).isEqualTo(NONE);
            assertThat(jobs.runMono("c").block()).isEqualTo(NONE);
        }));
    }

    @Test
    void theAccessorIsRegisteredByTheLibrary() {
        assertThat(ContextRegistry.getInstance().getThreadLocalAccessors())
                .anySatisfy((accessor) -> assertThat(accessor).isInstanceOf(RedlockContextAccessor.class));
    }

    private static void withoutAccessor(Runnable test) {
        ContextRegistry registry = ContextRegistry.getInstance();
        ThreadLocalAccessor<?> accessor = registry.getThreadLocalAccessors().stream()
                .filter((candidate) -> RedlockContextAccessor.KEY.equals(candidate.key())).findFirst().orElseThrow();
        registry.removeThreadLocalAccessor(RedlockContextAccessor.KEY);
        try {
            test.run();
        }
        finally {
            registry.registerThreadLocalAccessor(accessor);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class JobsConfiguration {

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        Jobs jobs(Reports reports) {
            return new Jobs(reports);
        }

    }

    static class Reports {

        /** Runs on Boot's executor: the key of the lease current there, and the thread's name. */
        @Async
        CompletableFuture<String> currentKey() {
            return CompletableFuture.completedFuture(Jobs.currentKey() + " on " + Thread.currentThread().getName());
        }

    }

    static class Jobs {

        private final Reports reports;

        Jobs(Reports reports) {
            this.reports = reports;
        }

        static String currentKey() {
            return RedlockContext.currentLease().map(RedlockLease::key).orElse(NONE);
        }

        @Redlocked(key = "job:#{#id}", ttl = "10s")
        String runAsync(String id) {
            return this.reports.currentKey().join();
        }

        @Redlocked(key = "job:#{#id}", ttl = "10s")
        String runBlocking(String id) {
            return Mono.fromSupplier(Jobs::currentKey).subscribeOn(Schedulers.parallel()).block();
        }

        @Redlocked(key = "job:#{#id}", ttl = "10s")
        Mono<String> runMono(String id) {
            return Mono.fromSupplier(Jobs::currentKey).subscribeOn(Schedulers.parallel());
        }

        @Redlocked(key = "job:#{#id}", ttl = "10s")
        Flux<String> runFlux(String id) {
            return Flux.range(0, 3).publishOn(Schedulers.parallel()).map((i) -> currentKey());
        }

    }

}
