package io.github.redlock.autoconfigure;

/**
 * Thrown at start-up when the Redlock configuration cannot work: the node list, a property, or a
 * {@code @Redlocked} annotation. A failure analyzer turns it into a report that says what to change.
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
    public RedlockConfigurationException(String description, String action, Throwable cause) {
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
