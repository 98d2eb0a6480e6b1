package io.github.redlock.autoconfigure;

import java.util.List;
import java.util.Locale;

import io.github.redlock.core.RedlockArgumentException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns the core builder's refusal of a setting into the start-up failure Spring Boot reports for a wrong
 * property: which {@code redlock.*} property, its value, and why (with an example for the node list).
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

    /**
     * Returns the failure to report for a setting the core refused.
     * @param ex the core's refusal, naming the builder setting
     * @param properties the properties the lock was built from
     * @param nodes the node list the lock was built from (the connection details')
     */
    static InvalidConfigurationPropertyValueException invalid(RedlockArgumentException ex, RedlockProperties properties,
            List<String> nodes) {
        String argument = ex.getArgument();
        Object value = switch (argument) {
            case "nodes" -> (nodes != null) ? nodes.stream().map(RedlockSettings::masked).toList() : null;
            case "nodeTimeout" -> properties.getNodeTimeout();
            case "clockDriftFactor" -> properties.getClockDriftFactor();
            case "retryDelay" -> properties.getRetryDelay();
            case "keyPrefix" -> properties.getKeyPrefix();
            case "instanceId" -> properties.getInstanceId();
            case "acquisitionBudget" -> properties.getAcquisitionBudget();
            case "maxTtl" -> properties.getMaxTtl();
            case "restartQuarantine" -> properties.getRestartQuarantine();
            default -> null;
        };
        String reason = ex.getMessage();
        if ("nodes".equals(argument)) {
            reason = ((nodes == null || nodes.isEmpty()) ? "redlock.nodes is missing or empty: the lock needs the URIs of the "
                    + "Redis masters it runs on" : reason) + ".\n\n" + NODES_EXAMPLE;
        }
        return new InvalidConfigurationPropertyValueException("redlock." + kebab(argument), value, reason, ex);
    }

    /**
     * A node URI without its user-info (password), as every failure prints it: everything between the scheme and the
     * last {@code @}, which may hold {@code /}, {@code +}, spaces and raw {@code @} (as the core masks an entry).
     */
    private static @Nullable String masked(@Nullable String node) {
        if (node == null) {
            return null;
        }
        int from = node.indexOf("://") + 3;
        int to = node.lastIndexOf('@');
        return (from >= 3 && to >= from) ? node.substring(0, from) + "****" + node.substring(to) : node;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

}
