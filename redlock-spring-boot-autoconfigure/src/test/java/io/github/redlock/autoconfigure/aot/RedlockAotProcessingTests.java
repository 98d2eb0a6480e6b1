package io.github.redlock.autoconfigure.aot;

import java.lang.reflect.Method;
import java.util.function.Consumer;

import io.github.redlock.actuate.endpoint.RedlockEndpoint;
import io.github.redlock.aop.RedlockedAspect;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockProperties;
import io.github.redlock.autoconfigure.endpoint.RedlockEndpointAutoConfiguration;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import org.aspectj.lang.ProceedingJoinPoint;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's context processed by the AOT engine, as {@code spring-boot:process-aot} does: the hints Spring
 * infers from the beans (the aspect's advice, the properties, the endpoint's answer) and the starter's own
 * registrar together cover what the starter uses reflectively.
 */
class RedlockAotProcessingTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedlockAutoConfiguration.class,
                    RedlockHealthContributorAutoConfiguration.class, RedlockEndpointAutoConfiguration.class))
            .withPropertyValues("redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3",
                    "management.endpoints.web.exposure.include=redlock");

    @Test
    void theAspectsAdviceCanBeInvoked() {
        processed((hints) -> assertThat(RuntimeHintsPredicates.reflection()
                .onMethodInvocation(method(RedlockedAspect.class, "lock", ProceedingJoinPoint.class))).accepts(hints));
    }

    @Test
    void thePropertiesCanBeBound() {
        processed((hints) -> {
            assertThat(RuntimeHintsPredicates.reflection().onType(RedlockProperties.class)).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedlockProperties.class, "setNodes"))
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedlockProperties.class, "setDefaultTtl"))
                    .accepts(hints);
        });
    }

    @Test
    void theEndpointsAnswerCanBeWrittenAsJson() {
        processed((hints) -> {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedlockEndpoint.class, "redlock"))
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedlockEndpoint.RedlockDescriptor.class, "nodes"))
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedlockEndpoint.NodeDescriptor.class, "vote"))
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection()
                    .onMethodInvocation(RedlockEndpoint.LeaseDescriptor.class, "remainingValidityMillis")).accepts(hints);
        });
    }

    @Test
    void theStartersOwnHintsArePartOfTheResult() {
        processed((hints) -> assertThat(RuntimeHintsPredicates.resource().forResource("io/github/redlock/core/internal/script/release.lua"))
                .as("the AOT engine applied RedlockRuntimeHints (META-INF/spring/aot.factories)").accepts(hints));
    }

    private void processed(Consumer<RuntimeHints> check) {
        this.runner.prepare((context) -> {
            GenericApplicationContext source = context.getSourceApplicationContext(GenericApplicationContext.class);
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get(RedlockAotProcessingTests.class)), new InMemoryGeneratedFiles());
            new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
            check.accept(generation.getRuntimeHints());
        });
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) {
        try {
            return type.getMethod(name, parameters);
        }
        catch (NoSuchMethodException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
