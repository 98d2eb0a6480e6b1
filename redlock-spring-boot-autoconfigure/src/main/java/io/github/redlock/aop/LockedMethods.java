package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import io.github.redlock.annotation.LockMode;
import io.github.redlock.annotation.OnFailure;
import io.github.redlock.annotation.Redlocked;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.expression.ParseException;

/**
 * Resolves each {@code @Redlocked} method once — placeholders, key template, durations, result kind — and
 * caches it, so that a call only evaluates the key. Every problem is a {@link RedlockConfigurationException}
 * naming the method and what to change; the {@link RedlockedAspect#validator validator} resolves methods
 * at start-up so that these surface then.
 */
final class LockedMethods {

    private final ConcurrentMap<MethodClassKey, LockedMethod> cache = new ConcurrentHashMap<>();

    private final Environment environment;

    private final Supplier<RedlockedDefaults> defaults;

    LockedMethods(Environment environment, Supplier<RedlockedDefaults> defaults) {
        this.environment = environment;
        this.defaults = defaults;
    }

    LockedMethod get(Method method, Class<?> targetClass) {
        return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> resolve(method, targetClass));
    }

    private LockedMethod resolve(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        Redlocked annotation = AnnotatedElementUtils.findMergedAnnotation(specific, Redlocked.class);
        if (annotation == null) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, Redlocked.class);
        }
        String description = LockedMethod.describe(specific);
        if (annotation == null) {
            throw new IllegalStateException(description + " is not annotated with @Redlocked");
        }
        List<KeyTemplate> keys = parseKeys(annotation, description, targetClass.getClassLoader());
        String template = (annotation.keys().length == 0) ? annotation.key() : String.join(",", annotation.keys());
        RedlockedDefaults defaults = this.defaults.get();
        Duration ttl = duration(annotation.ttl(), "ttl", defaults::ttl, description);
        if (ttl.isNegative() || ttl.toMillis() < 1) {
            throw new RedlockConfigurationException("@Redlocked ttl of " + description + " is " + ttl + ", below 1 ms.",
                    "Give " + description + " a positive ttl, e.g. @Redlocked(ttl = \"30s\"), or set redlock.default-ttl.", null);
        }
        if (ttl.compareTo(defaults.maxTtl()) > 0) {
            throw new RedlockConfigurationException("@Redlocked ttl of " + description + " is " + ttl + ", above redlock.max-ttl ("
                    + defaults.maxTtl() + ").", "Give " + description + " a shorter ttl with autoExtend = true and a maxHold for "
                            + "long work, or raise redlock.max-ttl (a node that restarted then waits that long before it votes).", null);
        }
        Duration waitTime = duration(annotation.waitTime(), "waitTime", defaults::waitTime, description);
        if (waitTime.isNegative()) {
            throw new RedlockConfigurationException("@Redlocked waitTime of " + description + " is negative (" + waitTime + ").",
                    "Use 0s for a single attempt, or a positive wait time such as \"2s\".", null);
        }
        LockedMethod.Result result = LockedMethod.Result.of(specific);
        checkResult(annotation, result, specific, description);
        Duration maxHold = null;
        if (annotation.autoExtend()) {
            maxHold = duration(annotation.maxHold(), "maxHold", defaults::maxHold, description);
            if (maxHold.isNegative() || maxHold.isZero()) {
                throw new RedlockConfigurationException("@Redlocked maxHold of " + description + " is " + maxHold
                        + ", not positive.", "Give " + description + " a positive maxHold, e.g. @Redlocked(autoExtend = true, "
                                + "maxHold = \"1h\"), or set redlock.default-max-hold.", null);
            }
        }
        else if (!annotation.maxHold().isBlank()) {
            throw new RedlockConfigurationException("@Redlocked on " + description + " sets maxHold without autoExtend = true, "
                    + "so maxHold would have no effect.", "Add autoExtend = true, or remove maxHold.", null);
        }
        return new LockedMethod(template, keys, ttl, waitTime, annotation.onFailure(), result, description,
                annotation.mode(), maxHold, annotation.interruptOnLoss(), result.adapterOf(specific), annotation.fenced());
    }

    /**
     * Refuses what the method's result cannot do: a skipped call of a method whose result cannot be null, and an
     * interrupt on loss where no thread or coroutine runs the method's work until it is done.
     */
    private static void checkResult(Redlocked annotation, LockedMethod.Result result, Method method, String description) {
        if (annotation.onFailure() == OnFailure.SKIP && result == LockedMethod.Result.PRIMITIVE) {
            throw new RedlockConfigurationException("@Redlocked(onFailure = SKIP) on " + description + ", which returns "
                    + method.getReturnType() + ": a skipped call has no value to return.",
                    "Make " + description + " return void, a wrapper type (e.g. Integer) or an Optional, or use "
                            + "onFailure = OnFailure.THROW.", null);
        }
        if (annotation.onFailure() == OnFailure.SKIP && result == LockedMethod.Result.SUSPEND) {
            MethodParameter returned = new MethodParameter(method, -1);
            if (returned.getParameterType() != void.class && !returned.isOptional()) {
                throw new RedlockConfigurationException("@Redlocked(onFailure = SKIP) on " + description + ", a suspend "
                        + "function that returns " + returned.getParameterType().getSimpleName() + ", which cannot be null: "
                        + "a skipped call returns null.", "Make " + description + " return a nullable type (e.g. Int?) or "
                                + "Unit, or use onFailure = OnFailure.THROW.", null);
            }
        }
        if (annotation.fenced() && annotation.mode() == LockMode.READ) {
            throw new RedlockConfigurationException("@Redlocked(fenced = true, mode = READ) on " + description + ": readers share "
                    + "the lock, so no fencing token orders them, and a read writes nothing to fence.", "Take the write lock "
                            + "(mode = LockMode.WRITE) for the work that writes, or remove fenced.", null);
        }
        if (annotation.fenced() && !result.synchronous()) {
            throw new RedlockConfigurationException("@Redlocked(fenced = true) on " + description + ", which returns "
                    + (result.suspending() ? "from a suspend function" : method.getReturnType().getSimpleName()) + ": the fence "
                    + "is advanced in the transaction of the calling thread as it commits, and this method's work commits "
                    + "elsewhere, later.", "Make " + description + " synchronous with @Transactional, or advance the fence in "
                            + "its own transaction by hand: JdbcFence.advance(name, lease.fencingToken()) (RedlockContext "
                            + "gives the lease), or RedisFence for data kept in Redis.", null);
        }
        if (annotation.interruptOnLoss() && !result.synchronous() && result != LockedMethod.Result.SUSPEND) {
            throw new RedlockConfigurationException("@Redlocked(interruptOnLoss = true) on " + description + ", which returns "
                    + (result.suspending() ? "a stream" : method.getReturnType().getSimpleName()) + ": its work does not "
                    + "run on the calling thread or coroutine, so there is nothing to interrupt.", "Remove interruptOnLoss, "
                            + "and stop the asynchronous work from the lease's loss some other way, or make the method "
                            + "synchronous (or a suspend function that returns a value).", null);
        }
    }

    /** The one key's template, or the templates of {@code keys}: exactly one of the two attributes is given. */
    private List<KeyTemplate> parseKeys(Redlocked annotation, String description, ClassLoader classLoader) {
        String[] keys = annotation.keys();
        if (keys.length == 0) {
            return List.of(parseKey(annotation.key(), description, classLoader));
        }
        if (!annotation.key().isEmpty()) {
            throw new RedlockConfigurationException("@Redlocked on " + description + " sets both key and keys.",
                    "Use key = \"…\" for one key, or keys = { \"…\", \"…\" } for a lock on several keys at once, not both.", null);
        }
        if (annotation.mode() != LockMode.EXCLUSIVE) {
            throw new RedlockConfigurationException("@Redlocked(mode = " + annotation.mode() + ") on " + description
                    + " sets keys: a lock on several keys at once is exclusive only.",
                    "Remove the mode, or lock one key with key = \"…\".", null);
        }
        List<KeyTemplate> templates = new ArrayList<>(keys.length);
        for (String key : keys) {
            templates.add(parseKey(key, description, classLoader));
        }
        return List.copyOf(templates);
    }

    private KeyTemplate parseKey(String template, String description, ClassLoader classLoader) {
        if (template.isBlank()) {
            throw new RedlockConfigurationException("@Redlocked on " + description + " has a blank key.",
                    "Give it a key naming what it protects, e.g. @Redlocked(key = \"order:#{#order.id}\"), or the keys of a lock "
                            + "on several keys, e.g. @Redlocked(keys = { \"acct:#{#from}\", \"acct:#{#to}\" }).", null);
        }
        String resolved;
        try {
            resolved = this.environment.resolveRequiredPlaceholders(template);
        }
        catch (IllegalArgumentException ex) {
            throw new RedlockConfigurationException("@Redlocked key '" + template + "' of " + description
                    + " has a placeholder that cannot be resolved: " + ex.getMessage(),
                    "Define the property, or give the placeholder a default (${name:default}).", ex);
        }
        try {
            return KeyTemplate.parse(resolved, classLoader);
        }
        catch (ParseException ex) {
            throw new RedlockConfigurationException("@Redlocked key '" + template + "' of " + description
                    + " is not a valid template: " + ex.getMessage(),
                    "Write literal text with #{…} SpEL parts over the arguments, e.g. \"order:#{#order.id}\" or "
                            + "\"job:#{#p0}\".", ex);
        }
    }

    private Duration duration(String text, String attribute, Supplier<Duration> fallback, String description) {
        if (text.isBlank()) {
            return fallback.get();
        }
        String resolved = null;
        try {
            resolved = this.environment.resolveRequiredPlaceholders(text).trim();
            return DurationStyle.detectAndParse(resolved);
        }
        catch (IllegalArgumentException ex) {
            throw new RedlockConfigurationException("@Redlocked " + attribute + " '" + text + "' of " + description
                    + " is not a duration" + ((resolved != null && !resolved.equals(text)) ? " (resolved to '" + resolved + "')" : "")
                    + ".", "Write it as 500ms, 10s, 5m or ISO-8601 (PT10S), or leave it empty for the default.", ex);
        }
    }

}
