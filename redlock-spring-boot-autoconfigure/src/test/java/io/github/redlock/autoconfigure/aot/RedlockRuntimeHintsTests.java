package io.github.redlock.autoconfigure.aot;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.aop.RedlockedAspect;
import org.aspectj.lang.annotation.Around;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each hint of {@link RedlockRuntimeHints}, checked against what the code really loads: the Lua scripts found on
 * the classpath (a new one without a hint fails), the getters of the key expressions' root, and the types the
 * aspect's pointcuts name.
 */
class RedlockRuntimeHintsTests {

    private static final String CORE = "io.github.redlock.core";

    private final RuntimeHints hints = new RuntimeHints();

    RedlockRuntimeHintsTests() {
        new RedlockRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @Test
    void everyLuaScriptOnTheClasspathIsAvailableInANativeImage() throws IOException {
        List<String> scripts = luaScriptsOnTheClasspath();
        assertThat(scripts).contains("io/github/redlock/core/internal/script/release.lua", "io/github/redlock/core/internal/script/acquire-fenced.lua");
        for (String script : scripts) {
            assertThat(RuntimeHintsPredicates.resource().forResource(script))
                    .as("no resource hint matches %s; cover it in RedlockRuntimeHints", script).accepts(this.hints);
        }
    }

    @Test
    void theCoreFindsItsScriptsBesideItsLoaderAsTheHintsDeclareThem() throws IOException {
        TypeReference loader = TypeReference.of(CORE + ".LuaScript");
        String folder = ClassUtils.convertClassNameToResourcePath(CORE) + "/";
        List<String> coreScripts = luaScriptsOnTheClasspath().stream().filter((script) -> script.startsWith(folder)).toList();
        assertThat(coreScripts).hasSizeGreaterThan(10);
        for (String script : coreScripts) {
            String name = script.substring(folder.length());
            assertThat(RuntimeHintsPredicates.resource().forResource(loader, name))
                    .as("no resource hint matches %s as LuaScript reads it", name).accepts(this.hints);
        }
    }

    @Test
    void everyGetterOfTheKeyExpressionRootCanBeCalledBySpel() throws ClassNotFoundException {
        Class<?> root = Class.forName(RedlockRuntimeHints.KEY_EXPRESSION_ROOT);
        List<Method> getters = new ArrayList<>();
        for (Method method : root.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers())) {
                getters.add(method);
            }
        }
        assertThat(getters).extracting(Method::getName).contains("getMethod", "getArgs", "getTarget", "getTargetClass");
        for (Method getter : getters) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(getter))
                    .as("SpEL cannot call #root.%s() without a hint", getter.getName()).accepts(this.hints);
        }
    }

    @Test
    void everyAnnotationThatTheAspectsPointcutsNameCanBeLoadedByName() throws ClassNotFoundException {
        List<String> named = new ArrayList<>();
        for (Method method : RedlockedAspect.class.getDeclaredMethods()) {
            Around around = method.getAnnotation(Around.class);
            if (around != null) {
                Matcher annotation = Pattern.compile("@annotation\\(([\\w.$]+)\\)").matcher(around.value());
                while (annotation.find()) {
                    named.add(annotation.group(1));
                }
            }
        }
        assertThat(named).containsExactly("io.github.redlock.annotation.Redlocked");
        for (String type : named) {
            assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(type)))
                    .as("AspectJ cannot load %s by name without a type hint", type).accepts(this.hints);
        }
    }

    @Test
    void theHintsAreRegisteredForTheAotEngine() {
        assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
                .hasAtLeastOneElementOfType(RedlockRuntimeHints.class);
    }

    /** Every {@code .lua} file under the project's packages, as a classpath path (e.g. {@code io/github/redlock/core/x.lua}). */
    private static List<String> luaScriptsOnTheClasspath() throws IOException {
        List<String> paths = new ArrayList<>();
        for (Resource script : new PathMatchingResourcePatternResolver().getResources("classpath*:io/github/redlock/**/*.lua")) {
            String url = script.getURL().toString();
            paths.add(url.substring(url.lastIndexOf("io/github/redlock/")));
        }
        return paths;
    }

}
