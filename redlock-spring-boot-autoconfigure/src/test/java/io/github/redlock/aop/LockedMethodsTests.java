package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests {@link LockedMethods}: how a {@code @Redlocked} method's attributes are resolved once (placeholders, durations
 * as {@code 10s} or ISO-8601, the {@code redlock.*} defaults for empty ones, the result kind) and every refusal, with
 * the description and the action its {@link RedlockConfigurationException} gives.
 */
class LockedMethodsTests {

    private static final RedlockedDefaults DEFAULTS = new RedlockedDefaults(Duration.ofSeconds(30), Duration.ZERO,
            Duration.ofMinutes(10), Duration.ofSeconds(60));

    private final MockEnvironment environment = new MockEnvironment().withProperty("jobs.ttl", "45s")
            .withProperty("jobs.prefix", "batch").withProperty("jobs.word", "ten");

    private final LockedMethods methods = new LockedMethods(this.environment, () -> DEFAULTS);

    @Test
    void emptyAttributesTakeTheDefaults() {
        LockedMethod locked = resolve("plain");
        assertThat(locked.template()).isEqualTo("job");
        assertThat(locked.keys()).singleElement().hasToString("job");
        assertThat(locked.ttl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(locked.waitTime()).isZero();
        assertThat(locked.maxHold()).isNull();
        assertThat(locked.watchesLoss()).isFalse();
        assertThat(locked.onFailure()).isEqualTo(OnFailure.THROW);
        assertThat(locked.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(locked.result()).isEqualTo(LockedMethod.Result.VALUE);
        assertThat(locked.description()).isEqualTo("Jobs.plain()");
    }

    @Test
    void durationsAreReadInEveryStyleBootReads() {
        LockedMethod locked = resolve("styles");
        assertThat(locked.ttl()).isEqualTo(Duration.ofMillis(1_500));
        assertThat(locked.waitTime()).isEqualTo(Duration.ofSeconds(10));
        assertThat(locked.maxHold()).isEqualTo(Duration.ofHours(1));
        assertThat(locked.watchesLoss()).isTrue();
    }

    @Test
    void placeholdersAreResolvedInKeysAndDurations() {
        LockedMethod locked = resolve("placeholders", Long.class);
        assertThat(locked.ttl()).isEqualTo(Duration.ofSeconds(45));
        assertThat(locked.keys()).singleElement().hasToString("batch:#{#id}");
        assertThat(locked.template()).isEqualTo("${jobs.prefix}:#{#id}"); // the metrics' tag: the template as written
        assertThat(locked.description()).isEqualTo("Jobs.placeholders(Long)");
    }

    @Test
    void anAutoExtendedMethodWithoutMaxHoldTakesTheDefault() {
        assertThat(resolve("extended").maxHold()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void aLockOnSeveralKeysKeepsEachTemplate() {
        LockedMethod locked = resolve("transfer", long.class, long.class);
        assertThat(locked.keys()).extracting(KeyTemplate::toString).containsExactly("acct:#{#from}", "acct:#{#to}");
        assertThat(locked.template()).isEqualTo("acct:#{#from},acct:#{#to}");
    }

    @Test
    void eachResultKindIsRecognised() {
        assertThat(resolve("plain").result()).isEqualTo(LockedMethod.Result.VALUE);
        assertThat(resolve("count").result()).isEqualTo(LockedMethod.Result.PRIMITIVE);
        assertThat(resolve("maybe").result()).isEqualTo(LockedMethod.Result.OPTIONAL);
        assertThat(resolve("later").result()).isEqualTo(LockedMethod.Result.COMPLETION_STAGE);
        assertThat(resolve("mono").result()).isEqualTo(LockedMethod.Result.MONO);
        assertThat(resolve("flux").result()).isEqualTo(LockedMethod.Result.FLUX);
        assertThat(resolve("mono").adapter()).isNotNull();
        assertThat(resolve("later").adapter()).isNull();
    }

    @Test
    void aSkippedCallReturnsWhatItsResultKindAllows() {
        assertThat(resolve("maybe").skippedValue()).isEqualTo(Optional.empty());
        assertThat(resolve("later").skippedValue()).isInstanceOfSatisfying(CompletableFuture.class,
                (future) -> assertThat(future).isCompletedWithValue(null));
        assertThat(resolve("plain").skippedValue()).isNull();
    }

    @Test
    void aMethodIsResolvedOnce() {
        Method method = method("plain");
        assertThat(this.methods.get(method, Jobs.class)).isSameAs(this.methods.get(method, Jobs.class));
    }

    @Test
    void aMethodWithoutTheAnnotationIsRefused() {
        assertThatIllegalStateException().isThrownBy(() -> resolve("unannotated")).withMessage("Jobs.unannotated() is not annotated with @Redlocked");
    }

    @Test
    void aBlankKeyIsRefused() {
        assertRefused("blankKey", "@Redlocked on Jobs.blankKey() has a blank key.", "Give it a key naming what it protects, e.g. "
                + "@Redlocked(key = \"order:#{#order.id}\"), or the keys of a lock on several keys, e.g. "
                + "@Redlocked(keys = { \"acct:#{#from}\", \"acct:#{#to}\" }).");
    }

    @Test
    void aKeyAndKeysTogetherAreRefused() {
        assertRefused("both", "@Redlocked on Jobs.both() sets both key and keys.",
                "Use key = \"…\" for one key, or keys = { \"…\", \"…\" } for a lock on several keys at once, not both.");
    }

    @Test
    void aReadLockOnSeveralKeysIsRefused() {
        assertRefused("readMany", "@Redlocked(mode = READ) on Jobs.readMany() sets keys: a lock on several keys at once is exclusive only.",
                "Remove the mode, or lock one key with key = \"…\".");
    }

    @Test
    void anUnresolvablePlaceholderInTheKeyIsRefused() {
        RedlockConfigurationException ex = refusal("missingProperty");
        assertThat(ex.getMessage()).isEqualTo("@Redlocked key 'job:${jobs.missing}' of Jobs.missingProperty() has a placeholder that "
                + "cannot be resolved: Could not resolve placeholder 'jobs.missing' in value \"job:${jobs.missing}\"");
        assertThat(ex.getAction()).isEqualTo("Define the property, or give the placeholder a default (${name:default}).");
        assertThat(ex.getCause()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anInvalidTemplateIsRefused() {
        RedlockConfigurationException ex = refusal("badTemplate");
        assertThat(ex.getMessage()).startsWith("@Redlocked key 'order:#{#id' of Jobs.badTemplate() is not a valid template: ")
                .contains("No ending suffix '}'");
        assertThat(ex.getAction()).isEqualTo("Write literal text with #{…} SpEL parts over the arguments, e.g. \"order:#{#order.id}\" "
                + "or \"job:#{#p0}\".");
    }

    @Test
    void aDurationThatIsNotOneIsRefused() {
        assertRefused("wordTtl", "@Redlocked ttl 'ten seconds' of Jobs.wordTtl() is not a duration.",
                "Write it as 500ms, 10s, 5m or ISO-8601 (PT10S), or leave it empty for the default.");
    }

    @Test
    void aPlaceholderThatResolvesToNoDurationIsRefusedWithWhatItResolvedTo() {
        assertRefused("placeholderWord", "@Redlocked waitTime '${jobs.word}' of Jobs.placeholderWord() is not a duration (resolved to "
                + "'ten').", "Write it as 500ms, 10s, 5m or ISO-8601 (PT10S), or leave it empty for the default.");
    }

    @Test
    void aTtlBelowOneMillisecondIsRefused() {
        assertRefused("zeroTtl", "@Redlocked ttl of Jobs.zeroTtl() is PT0S, below 1 ms.",
                "Give Jobs.zeroTtl() a positive ttl, e.g. @Redlocked(ttl = \"30s\"), or set redlock.default-ttl.");
    }

    @Test
    void aTtlAboveTheMaxTtlIsRefused() {
        assertRefused("longTtl", "@Redlocked ttl of Jobs.longTtl() is PT2M, above redlock.max-ttl (PT1M).", "Give Jobs.longTtl() a "
                + "shorter ttl with autoExtend = true and a maxHold for long work, or raise redlock.max-ttl (a node that restarted "
                + "then waits that long before it votes).");
    }

    @Test
    void aTtlOfExactlyTheMaxTtlIsAllowed() {
        assertThat(resolve("maxTtl").ttl()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aNegativeWaitTimeIsRefused() {
        assertRefused("negativeWait", "@Redlocked waitTime of Jobs.negativeWait() is negative (PT-1S).",
                "Use 0s for a single attempt, or a positive wait time such as \"2s\".");
    }

    @Test
    void aMaxHoldWithoutAutoExtendIsRefused() {
        assertRefused("holdWithoutExtend", "@Redlocked on Jobs.holdWithoutExtend() sets maxHold without autoExtend = true, so maxHold "
                + "would have no effect.", "Add autoExtend = true, or remove maxHold.");
    }

    @Test
    void aZeroMaxHoldIsRefused() {
        assertRefused("zeroHold", "@Redlocked maxHold of Jobs.zeroHold() is PT0S, not positive.", "Give Jobs.zeroHold() a positive "
                + "maxHold, e.g. @Redlocked(autoExtend = true, maxHold = \"1h\"), or set redlock.default-max-hold.");
    }

    @Test
    void skippingAMethodThatReturnsAPrimitiveIsRefused() {
        assertRefused("skippedCount", "@Redlocked(onFailure = SKIP) on Jobs.skippedCount(), which returns int: a skipped call has no "
                + "value to return.", "Make Jobs.skippedCount() return void, a wrapper type (e.g. Integer) or an Optional, or use "
                + "onFailure = OnFailure.THROW.");
    }

    @Test
    void interruptingAnAsynchronousMethodIsRefused() {
        RedlockConfigurationException ex = refusal("interruptLater");
        assertThat(ex.getMessage()).isEqualTo("@Redlocked(interruptOnLoss = true) on Jobs.interruptLater(), which returns "
                + "CompletableFuture: its work does not run on the calling thread or coroutine, so there is nothing to interrupt.");
        assertThat(ex.getAction()).startsWith("Remove interruptOnLoss");
    }

    @Test
    void interruptingASynchronousMethodWatchesTheLease() {
        LockedMethod locked = resolve("interruptible");
        assertThat(locked.interruptOnLoss()).isTrue();
        assertThat(locked.watchesLoss()).isTrue();
    }

    private LockedMethod resolve(String name, Class<?>... parameterTypes) {
        return this.methods.get(method(name, parameterTypes), Jobs.class);
    }

    private void assertRefused(String name, String description, String action) {
        RedlockConfigurationException ex = refusal(name);
        assertThat(ex.getMessage()).isEqualTo(description);
        assertThat(ex.getAction()).isEqualTo(action);
    }

    private RedlockConfigurationException refusal(String name) {
        return catchRefusal(() -> resolve(name));
    }

    private static RedlockConfigurationException catchRefusal(Runnable resolve) {
        return assertThatExceptionOfType(RedlockConfigurationException.class).isThrownBy(resolve::run).actual();
    }

    private static Method method(String name, Class<?>... parameterTypes) {
        try {
            return Jobs.class.getDeclaredMethod(name, parameterTypes);
        }
        catch (NoSuchMethodException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @SuppressWarnings("unused")
    static class Jobs {

        @Redlocked(key = "job")
        void plain() {
        }

        @Redlocked(key = "job", ttl = "1500ms", waitTime = "PT10S", autoExtend = true, maxHold = " 1h ")
        void styles() {
        }

        @Redlocked(key = "${jobs.prefix}:#{#id}", ttl = "${jobs.ttl}")
        void placeholders(Long id) {
        }

        @Redlocked(key = "job", autoExtend = true)
        void extended() {
        }

        @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" })
        void transfer(long from, long to) {
        }

        @Redlocked(key = "job")
        int count() {
            return 0;
        }

        @Redlocked(key = "job", onFailure = OnFailure.SKIP)
        Optional<String> maybe() {
            return Optional.empty();
        }

        @Redlocked(key = "job")
        CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("");
        }

        @Redlocked(key = "job")
        Mono<String> mono() {
            return Mono.empty();
        }

        @Redlocked(key = "job")
        Flux<String> flux() {
            return Flux.empty();
        }

        void unannotated() {
        }

        @Redlocked(key = "  ")
        void blankKey() {
        }

        @Redlocked(key = "a", keys = { "b", "c" })
        void both() {
        }

        @Redlocked(keys = { "a", "b" }, mode = LockMode.READ)
        void readMany() {
        }

        @Redlocked(key = "job:${jobs.missing}")
        void missingProperty() {
        }

        @Redlocked(key = "order:#{#id")
        void badTemplate() {
        }

        @Redlocked(key = "job", ttl = "ten seconds")
        void wordTtl() {
        }

        @Redlocked(key = "job", waitTime = "${jobs.word}")
        void placeholderWord() {
        }

        @Redlocked(key = "job", ttl = "0s")
        void zeroTtl() {
        }

        @Redlocked(key = "job", ttl = "2m")
        void longTtl() {
        }

        @Redlocked(key = "job", ttl = "60s")
        void maxTtl() {
        }

        @Redlocked(key = "job", waitTime = "-1s")
        void negativeWait() {
        }

        @Redlocked(key = "job", maxHold = "1h")
        void holdWithoutExtend() {
        }

        @Redlocked(key = "job", autoExtend = true, maxHold = "0s")
        void zeroHold() {
        }

        @Redlocked(key = "job", onFailure = OnFailure.SKIP)
        int skippedCount() {
            return 0;
        }

        @Redlocked(key = "job", interruptOnLoss = true)
        CompletableFuture<Void> interruptLater() {
            return CompletableFuture.completedFuture(null);
        }

        @Redlocked(key = "job", interruptOnLoss = true)
        void interruptible() {
        }

    }

}
