package io.github.redlock.aop;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.expression.ParseException;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link KeyTemplate}: literal keys, {@code #{…}} SpEL parts evaluated per call, and the errors that name the
 * template, the method and the part when a part is null or the key is empty, which SpEL's own templates would let
 * through as a key shared by every call.
 */
class KeyTemplateTests {

    private static final String METHOD = "OrderService.pay(Order)";

    private static final ClassLoader LOADER = KeyTemplateTests.class.getClassLoader();

    @Test
    void aLiteralKeyIsTheSameOnEveryCallWithoutAContext() {
        KeyTemplate template = KeyTemplate.parse("nightly-settlement", LOADER);
        assertThat(template.isLiteral()).isTrue();
        assertThat(template.evaluate(null, METHOD)).isEqualTo("nightly-settlement");
    }

    @Test
    void aPartIsEvaluatedAgainstTheCallsArguments() {
        KeyTemplate template = KeyTemplate.parse("order:#{#id}", LOADER);
        assertThat(template.isLiteral()).isFalse();
        assertThat(template.evaluate(context("id", 42L), METHOD)).isEqualTo("order:42");
        assertThat(template.evaluate(context("id", "A-7"), METHOD)).isEqualTo("order:A-7");
    }

    @Test
    void severalPartsAndLiteralTextAreJoinedInOrder() {
        KeyTemplate template = KeyTemplate.parse("transfer:#{#from}->#{#to}:#{#from + #to}", LOADER);
        StandardEvaluationContext context = context("from", 3);
        context.setVariable("to", 4);
        assertThat(template.evaluate(context, METHOD)).isEqualTo("transfer:3->4:7");
    }

    @Test
    void aTemplateOfOnePartIsThatPart() {
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertThat(KeyTemplate.parse("#{#id}", LOADER).evaluate(context("id", id), METHOD))
                .isEqualTo("123e4567-e89b-12d3-a456-426614174000");
    }

    @Test
    void aConstantExpressionIsNotALiteral() {
        KeyTemplate template = KeyTemplate.parse("#{'fixed'}", LOADER);
        assertThat(template.isLiteral()).isFalse();
        assertThat(template.evaluate(new StandardEvaluationContext(), METHOD)).isEqualTo("fixed");
    }

    @Test
    void aNullPartIsAnErrorNamingTheTemplateTheMethodAndThePart() {
        KeyTemplate template = KeyTemplate.parse("order:#{#order.id}:#{#id}", LOADER);
        StandardEvaluationContext context = context("order", new Order(7L));
        assertThatIllegalArgumentException().isThrownBy(() -> template.evaluate(context, METHOD))
                .withMessage("@Redlocked key 'order:#{#order.id}:#{#id}' of OrderService.pay(Order): the part #{#id} evaluated "
                        + "to null; pass a non-null value or change the key");
    }

    @Test
    void aNullArgumentIsAnErrorRatherThanAKeySharedByEveryCall() {
        KeyTemplate template = KeyTemplate.parse("order:#{#id}", LOADER);
        assertThatIllegalArgumentException().isThrownBy(() -> template.evaluate(context("id", null), METHOD))
                .withMessage("@Redlocked key 'order:#{#id}' of OrderService.pay(Order): the part #{#id} evaluated to null; pass a "
                        + "non-null value or change the key");
    }

    @Test
    void anEmptyKeyIsAnError() {
        KeyTemplate template = KeyTemplate.parse("#{#name}", LOADER);
        assertThatIllegalArgumentException().isThrownBy(() -> template.evaluate(context("name", ""), METHOD))
                .withMessage("@Redlocked key '#{#name}' of OrderService.pay(Order) evaluated to an empty key; give the key some text "
                        + "or a part that is never empty");
    }

    @Test
    void aBlankKeyIsAnError() {
        KeyTemplate template = KeyTemplate.parse("#{#name} ", LOADER);
        assertThatIllegalArgumentException().isThrownBy(() -> template.evaluate(context("name", "  "), METHOD))
                .withMessageContaining("evaluated to an empty key");
    }

    @Test
    void anUnclosedPartIsRefusedWhenParsed() {
        assertThatExceptionOfType(ParseException.class).isThrownBy(() -> KeyTemplate.parse("order:#{#id", LOADER))
                .withMessageContaining("No ending suffix '}' for expression starting at character 6: #{#id");
    }

    @Test
    void anEmptyPartIsRefusedWhenParsed() {
        assertThatExceptionOfType(ParseException.class).isThrownBy(() -> KeyTemplate.parse("order:#{}", LOADER))
                .withMessageContaining("No expression defined within delimiter '#{}' at character 6");
    }

    @Test
    void aPartThatIsNotSpelIsRefusedWhenParsed() {
        assertThatExceptionOfType(ParseException.class).isThrownBy(() -> KeyTemplate.parse("order:#{#id +}", LOADER));
    }

    @Test
    void aPartKeepsWorkingOnceCompiledWhenItsArgumentChangesType() {
        // MIXED mode compiles a part after a few calls and falls back to interpreting it when the compiled code fails.
        KeyTemplate template = KeyTemplate.parse("item:#{#item.id}", LOADER);
        for (int i = 0; i < 200; i++) {
            assertThat(template.evaluate(context("item", new Order((long) i)), METHOD)).isEqualTo("item:" + i);
        }
        assertThat(template.evaluate(context("item", new Ticket("T-1")), METHOD)).isEqualTo("item:T-1");
    }

    @Test
    void theTemplateIsItsText() {
        assertThat(KeyTemplate.parse("order:#{#id}", LOADER)).hasToString("order:#{#id}");
    }

    private static StandardEvaluationContext context(String name, Object value) {
        StandardEvaluationContext context = new StandardEvaluationContext();
        context.setVariable(name, value);
        return context;
    }

    public record Order(Long id) {
    }

    public record Ticket(String id) {
    }

}
