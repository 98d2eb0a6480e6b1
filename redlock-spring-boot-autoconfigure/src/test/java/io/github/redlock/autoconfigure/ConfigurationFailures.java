package io.github.redlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Finds the {@link RedlockConfigurationException} inside a start-up failure.
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
        Throwable cause = failure;
        while (cause != null && !(cause instanceof RedlockConfigurationException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("RedlockConfigurationException in %s", failure).isNotNull();
        return (RedlockConfigurationException) cause;
    }

}
