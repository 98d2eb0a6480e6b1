package io.github.redlock.autoconfigure;

import io.github.redlock.aop.RedlockConfigurationException;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Finds the exception that a start-up failure reports: a {@link RedlockConfigurationException} for a
 * {@code @Redlocked} method, a {@link InvalidConfigurationPropertyValueException} for a property.
 */
public final class ConfigurationFailures {

    private ConfigurationFailures() {
    }

    /**
     * Returns the configuration exception in the failure's cause chain, failing the test if there is none.
     * @param failure a context's start-up failure
     * @return the configuration exception
     */
    public static RedlockConfigurationException find(Throwable failure) {
        return find(failure, RedlockConfigurationException.class);
    }

    /**
     * Returns the invalid property in the failure's cause chain, failing the test if there is none.
     * @param failure a context's start-up failure
     * @return the property's exception
     */
    public static InvalidConfigurationPropertyValueException findProperty(Throwable failure) {
        return find(failure, InvalidConfigurationPropertyValueException.class);
    }

    private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        Throwable cause = failure;
        while (cause != null && !type.isInstance(cause)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("%s in %s", type.getSimpleName(), failure).isNotNull();
        return type.cast(cause);
    }

}
