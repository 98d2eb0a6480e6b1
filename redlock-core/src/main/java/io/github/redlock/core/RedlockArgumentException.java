package io.github.redlock.core;

/**
 * Thrown when an argument of a lock operation, or a setting of {@link Redlock.Builder}, is invalid. The message
 * names it and says what to write; {@link #getArgument()} gives its name, as the method's parameter or the
 * builder's method is called ({@code key}, {@code ttl}, {@code waitTime}, {@code nodes}, {@code nodeTimeout}, …),
 * so that integrations can point at their own setting without parsing the message.
 */
public class RedlockArgumentException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String argument;

    /**
     * Creates the exception.
     * @param argument the name of the invalid argument or setting
     * @param message what is wrong and what to write, starting with the argument's name
     */
    public RedlockArgumentException(String argument, String message) {
        super(message);
        this.argument = argument;
    }

    /**
     * Creates the exception with its cause.
     * @param argument the name of the invalid argument or setting
     * @param message what is wrong and what to write, starting with the argument's name
     * @param cause what was thrown while reading it
     */
    public RedlockArgumentException(String argument, String message, Throwable cause) {
        super(message, cause);
        this.argument = argument;
    }

    /**
     * Returns the name of the invalid argument or builder setting, e.g. {@code ttl} or {@code nodeTimeout}.
     * @return the name
     */
    public String getArgument() {
        return this.argument;
    }

}
