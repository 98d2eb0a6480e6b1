package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import io.github.redlock.annotation.Redlocked;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link KeyEvaluator}: the keys of one call of a {@code @Redlocked} method, from its arguments by name,
 * {@code #p0} and {@code #a0}, from {@code #root} and from beans ({@code @name}); a lock on several keys gets them
 * sorted and without duplicates.
 */
class KeyEvaluatorTests {

    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

    private final LockedMethods methods = new LockedMethods(new MockEnvironment(),
            () -> new RedlockedDefaults(Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10), Duration.ofSeconds(60)));

    private final KeyEvaluator evaluator = new KeyEvaluator(this.beans);

    private final Orders target = new Orders();

    @Test
    void argumentsAreNamedByTheirParameterNames() throws Exception {
        assertThat(evaluate("byName", new Order(42L, "eu"))).containsExactly("order:eu:42");
    }

    @Test
    void argumentsAreNamedByPosition() throws Exception {
        assertThat(evaluate("byPosition", 7, "x")).containsExactly("job:7:x");
    }

    @Test
    void theRootIsTheCall() throws Exception {
        assertThat(evaluate("byRoot", 1)).containsExactly("Orders.byRoot:1:Orders");
    }

    @Test
    void beansAreReachable() throws Exception {
        this.beans.registerSingleton("tenant", new Tenant("acme"));
        assertThat(evaluate("byBean")).containsExactly("acme:report");
    }

    @Test
    void aLiteralKeyNeedsNoArguments() throws Exception {
        assertThat(evaluate("literal")).containsExactly("nightly");
    }

    @Test
    void severalKeysAreSortedWithoutDuplicates() throws Exception {
        assertThat(evaluate("transfer", 9L, 3L)).containsExactly("acct:3", "acct:9");
        assertThat(evaluate("transfer", 5L, 5L)).containsExactly("acct:5");
    }

    @Test
    void severalKeysMayMixLiteralAndEvaluatedOnes() throws Exception {
        assertThat(evaluate("mixed", 2L)).containsExactly("acct:2", "ledger");
    }

    @Test
    void aNullArgumentIsAnErrorNamingTheMethod() {
        assertThatIllegalArgumentException().isThrownBy(() -> evaluate("byName", new Order(null, "eu")))
                .withMessage("@Redlocked key 'order:#{#order.region}:#{#order.id}' of Orders.byName(Order): the part "
                        + "#{#order.id} evaluated to null; pass a non-null value or change the key");
    }

    @Test
    void aNullArgumentOfSeveralKeysIsAnErrorToo() {
        assertThatIllegalArgumentException().isThrownBy(() -> evaluate("transfer", 1L, null))
                .withMessageStartingWith("@Redlocked key 'acct:#{#to}' of Orders.transfer(Long, Long): the part #{#to} evaluated to null");
    }

    private java.util.List<String> evaluate(String name, Object... args) throws NoSuchMethodException {
        Method method = null;
        for (Method candidate : Orders.class.getDeclaredMethods()) {
            if (candidate.getName().equals(name)) {
                method = candidate;
            }
        }
        if (method == null) {
            throw new NoSuchMethodException(name);
        }
        return this.evaluator.evaluate(this.methods.get(method, Orders.class), method, args, this.target, Orders.class);
    }

    public record Order(Long id, String region) {
    }

    public record Tenant(String name) {
    }

    @SuppressWarnings("unused")
    static class Orders {

        @Redlocked(key = "order:#{#order.region}:#{#order.id}")
        void byName(Order order) {
        }

        @Redlocked(key = "job:#{#p0}:#{#a1}")
        void byPosition(int number, String text) {
        }

        @Redlocked(key = "#{#root.targetClass.simpleName}.#{#root.methodName}:#{#root.args[0]}:#{#root.target.class.simpleName}")
        void byRoot(int number) {
        }

        @Redlocked(key = "#{@tenant.name}:report")
        void byBean() {
        }

        @Redlocked(key = "nightly")
        void literal() {
        }

        @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" })
        void transfer(Long from, Long to) {
        }

        @Redlocked(keys = { "ledger", "acct:#{#id}" })
        void mixed(Long id) {
        }

    }

}
