package io.github.redlock.aop;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a {@code @Redlocked} method cannot work as annotated (a bad key template, duration or
 * combination of attributes). The starter's failure analyzer turns it into a report that says what to change.
 * Wrong {@code redlock.*} properties are reported as Spring Boot's
 * {@code InvalidConfigurationPropertyValueException} instead.
 */
public class RedlockConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * Creates an exception.
     * @param description what is wrong
     * @param action what to change
     * @param cause the underlying error, or {@code null}
     */
    public RedlockConfigurationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /**
     * Returns what to change to fix the configuration.
     * @return the action
     */
    public String getAction() {
        return this.action;
    }

}
