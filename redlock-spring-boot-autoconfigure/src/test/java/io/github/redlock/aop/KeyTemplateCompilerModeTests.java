package io.github.redlock.aop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key templates are compiled to bytecode on the JVM and only interpreted where the application runs on
 * ahead-of-time artifacts (a native image, which cannot define classes at run time, or the JVM with
 * {@code -Dspring.aot.enabled=true}).
 */
class KeyTemplateCompilerModeTests {

    /** The type every class SpEL's compiler generates extends; its loading shows that a class was generated. */
    private static final String COMPILED_EXPRESSION = "org.springframework.expression.spel.CompiledExpression";

    @Test
    void templatesAreInterpretedAheadOfTimeAndCompiledOtherwise() {
        assertThat(KeyTemplate.compilerMode(true)).isEqualTo(SpelCompilerMode.OFF);
        assertThat(KeyTemplate.compilerMode(false)).isEqualTo(SpelCompilerMode.MIXED);
    }

    @Test
    void aTemplateUsedOftenOnTheJvmIsCompiledToAClass() {
        assertThat(classesLoadedWhileEvaluatingOften()).contains(COMPILED_EXPRESSION);
    }

    @Test
    void aTemplateUsedOftenWithAotEnabledGeneratesNoClass() {
        System.setProperty(AotDetector.AOT_ENABLED, "true");
        try {
            assertThat(classesLoadedWhileEvaluatingOften()).doesNotContain(COMPILED_EXPRESSION);
        }
        finally {
            System.clearProperty(AotDetector.AOT_ENABLED);
        }
    }

    /** Parses a template with a class loader that records what is loaded through it, and evaluates it 300 times. */
    private static Set<String> classesLoadedWhileEvaluatingOften() {
        RecordingClassLoader loader = new RecordingClassLoader(KeyTemplateCompilerModeTests.class.getClassLoader());
        KeyTemplate template = KeyTemplate.parse("order:#{#id}", loader);
        StandardEvaluationContext context = new StandardEvaluationContext();
        for (int i = 0; i < 300; i++) {
            context.setVariable("id", "o-" + i);
            assertThat(template.evaluate(context, "pay(String)")).isEqualTo("order:o-" + i);
        }
        return loader.loaded;
    }

    private static final class RecordingClassLoader extends ClassLoader {

        private final Set<String> loaded = ConcurrentHashMap.newKeySet();

        RecordingClassLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            this.loaded.add(name);
            return super.loadClass(name, resolve);
        }

    }

}
