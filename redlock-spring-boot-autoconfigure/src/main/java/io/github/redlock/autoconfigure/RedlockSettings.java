package io.github.redlock.autoconfigure;

/**
 * Turns the core builder's complaints (messages that start with the builder property's name) into
 * start-up failures that name the {@code redlock.*} property and say what to write.
 */
final class RedlockSettings {

    private static final String NODES_EXAMPLE = """
            List the independent Redis masters under redlock.nodes, for example:

                redlock:
                  nodes:
                    - redis://10.0.0.1:6379
                    - redis://10.0.0.2:6379
                    - redis://10.0.0.3:6379

            (rediss:// for TLS, redis://:password@host:port/db with a password; 3 or 5 nodes survive the loss of 1 or 2)""";

    private RedlockSettings() {
    }

    static RedlockConfigurationException invalid(IllegalArgumentException ex) {
        String message = String.valueOf(ex.getMessage());
        if (message.startsWith("nodes must list")) {
            return new RedlockConfigurationException("redlock.nodes is missing or empty: the lock needs the URIs of the "
                    + "Redis masters it runs on.", NODES_EXAMPLE, ex);
        }
        if (message.startsWith("nodes")) {
            return new RedlockConfigurationException("Invalid redlock." + message, NODES_EXAMPLE, ex);
        }
        int end = message.indexOf(' ');
        String property = (end > 0) ? message.substring(0, end) : message;
        String kebab = property.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
        return new RedlockConfigurationException("Invalid redlock." + kebab + ((end > 0) ? message.substring(end) : ""),
                "Change redlock." + kebab + " in the application's configuration to a valid value.", ex);
    }

}
