package io.github.redlock.aop;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.AotDetector;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.common.LiteralExpression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A {@code @Redlocked} key template: literal text with {@code #{…}} SpEL parts, parsed once, evaluated per
 * call. Unlike SpEL's own template evaluation, which drops null parts silently, a part that evaluates to
 * null is an error, so that {@code "order:#{#order.id}"} never locks {@code "order:"} for every order.
 */
final class KeyTemplate {

    private static final TemplateParserContext TEMPLATE = new TemplateParserContext("#{", "}");

    private final String template;

    private final List<Expression> parts;

    private final boolean literal;

    private KeyTemplate(String template, List<Expression> parts) {
        this.template = template;
        this.parts = parts;
        this.literal = parts.stream().allMatch(LiteralExpression.class::isInstance);
    }

    /**
     * Parses a template whose placeholders were resolved. On the JVM its parts are compiled to bytecode once
     * they have run a few times (SpEL's mixed mode falls back to interpreting them when that fails); in a
     * native image, which cannot define classes at run time, and in an application processed ahead of time,
     * which runs as it would in one, they are interpreted.
     * @param classLoader sees the types the parts use: the annotated class's loader
     * @throws ParseException when a part is not valid SpEL
     */
    static KeyTemplate parse(String template, ClassLoader classLoader) {
        SpelCompilerMode mode = compilerMode(AotDetector.useGeneratedArtifacts());
        SpelExpressionParser parser = new SpelExpressionParser(new SpelParserConfiguration(mode, classLoader));
        Expression expression = parser.parseExpression(template, TEMPLATE);
        List<Expression> parts = (expression instanceof CompositeStringExpression composite)
                ? List.of(composite.getExpressions()) : List.of(expression);
        return new KeyTemplate(template, parts);
    }

    /**
     * The SpEL compiler mode of key templates: {@code OFF} where the application runs on generated artifacts
     * (a native image, or {@code -Dspring.aot.enabled=true}), {@code MIXED} otherwise.
     */
    static SpelCompilerMode compilerMode(boolean aheadOfTime) {
        return aheadOfTime ? SpelCompilerMode.OFF : SpelCompilerMode.MIXED;
    }

    /** Whether the template has no SpEL part: the key is always the same. */
    boolean isLiteral() {
        return this.literal; // decided once: it is asked on every call
    }

    /**
     * Evaluates the key.
     * @return the key, never empty
     * @throws IllegalArgumentException when a part is null or the key is empty, naming the part
     */
    String evaluate(@Nullable EvaluationContext context, String method) {
        StringBuilder key = new StringBuilder();
        for (Expression part : this.parts) {
            Object value = (context != null) ? part.getValue(context) : part.getValue(); // no context: a literal
            if (value == null) {
                throw new IllegalArgumentException("@Redlocked key '" + this.template + "' of " + method + ": the part #{"
                        + part.getExpressionString() + "} evaluated to null; pass a non-null value or change the key");
            }
            key.append(value);
        }
        if (key.toString().isBlank()) {
            throw new IllegalArgumentException("@Redlocked key '" + this.template + "' of " + method
                    + " evaluated to an empty key; give the key some text or a part that is never empty");
        }
        return key.toString();
    }

    @Override
    public String toString() {
        return this.template;
    }

}
