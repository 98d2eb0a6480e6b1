package io.github.redlock.autoconfigure.aot;

import io.github.redlock.annotation.Redlocked;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image of an application needs from the starter beyond what Spring infers from its beans:
 * the Lua scripts of the core, read as classpath resources; the {@code #root} object of {@code @Redlocked} key
 * expressions, whose getters SpEL calls by reflection; and the annotation type that the aspect's pointcut names
 * as text. Registered in {@code META-INF/spring/aot.factories}.
 * <p>
 * Left to Spring on purpose: the aspect's advice method (its AspectJ AOT processor registers it), the
 * {@code redlock.*} properties (Boot's configuration properties processor), the endpoint's answer types (the
 * {@code @ReadOperation} processor registers binding hints for them), and the annotation's attributes (visible
 * without a hint; {@code @Redlocked} targets methods only and has no aliases, so it is never synthesized).
 */
final class RedlockRuntimeHints implements RuntimeHintsRegistrar {

    /** Every Lua script, wherever under the project's packages it lives, so that a moved or new script is covered. */
    static final String LUA_SCRIPTS = "io/github/redlock/**/*.lua";

    /** The {@code #root} of key expressions ({@code #root.method}, {@code #root.args}, ...): package-private, named. */
    static final String KEY_EXPRESSION_ROOT = "io.github.redlock.aop.RedlockedRoot";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(LUA_SCRIPTS);
        hints.reflection().registerType(TypeReference.of(KEY_EXPRESSION_ROOT), MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(Redlocked.class); // AspectJ loads "@annotation(io.github.redlock...)" by name
    }

}
