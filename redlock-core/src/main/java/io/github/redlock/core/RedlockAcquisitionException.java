package io.github.redlock.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired within the wait time. The message names the key, how many
 * nodes agreed, the quorum, each node that did not agree with its reason, and, when a quorum of nodes holds the lock
 * for one instance, that instance (its {@code instanceId}); the same facts are available from the getters.
 */
public class RedlockAcquisitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String key;

    private final int agreedNodes;

    private final int quorum;

    private final Map<String, String> nodeFailures;

    private final @Nullable String holder;

    /**
     * Creates an exception for a failed acquisition.
     * @param key the key as the caller gave it
     * @param agreedNodes how many nodes agreed in the last attempt
     * @param quorum how many nodes must agree
     * @param nodeFailures the nodes that did not agree in the last attempt ({@code host:port} to reason)
     * @param detail what else went wrong (e.g. validity ran out, attempts made), or {@code null}
     */
    public RedlockAcquisitionException(String key, int agreedNodes, int quorum, Map<String, String> nodeFailures,
            @Nullable String detail) {
        this(key, agreedNodes, quorum, nodeFailures, detail, null);
    }

    /**
     * Creates an exception for a failed acquisition of a lock that a quorum of nodes holds for one instance.
     * @param key the key as the caller gave it
     * @param agreedNodes how many nodes agreed in the last attempt
     * @param quorum how many nodes must agree
     * @param nodeFailures the nodes that did not agree in the last attempt ({@code host:port} to reason)
     * @param detail what else went wrong (e.g. validity ran out, attempts made), or {@code null}
     * @param holder the instance id that holds the lock on a quorum of nodes ({@code unknown} for another client's
     * tokens), or {@code null} when none is known
     */
    public RedlockAcquisitionException(String key, int agreedNodes, int quorum, Map<String, String> nodeFailures,
            @Nullable String detail, @Nullable String holder) {
        super(message(key, agreedNodes, quorum, nodeFailures, detail, holder));
        this.key = key;
        this.agreedNodes = agreedNodes;
        this.quorum = quorum;
        this.nodeFailures = Collections.unmodifiableMap(new LinkedHashMap<>(nodeFailures));
        this.holder = holder;
    }

    private static String message(String key, int agreed, int quorum, Map<String, String> failures, @Nullable String detail,
            @Nullable String holder) {
        StringBuilder message = new StringBuilder("Could not acquire lock '").append(key).append("': ")
                .append(agreed).append(" node(s) agreed, quorum is ").append(quorum);
        if (holder != null) {
            message.append("; held by ").append(holder);
        }
        if (detail != null) {
            message.append("; ").append(detail);
        }
        if (!failures.isEmpty()) {
            message.append("; failed nodes: ").append(failures.entrySet().stream()
                    .map((failure) -> failure.getKey() + " (" + failure.getValue() + ")")
                    .collect(Collectors.joining(", ")));
        }
        return message.toString();
    }

    /**
     * Returns the key as the caller gave it (without the key prefix).
     * @return the key
     */
    public String getKey() {
        return this.key;
    }

    /**
     * Returns how many nodes agreed in the last attempt.
     * @return the count of nodes that set the key
     */
    public int getAgreedNodes() {
        return this.agreedNodes;
    }

    /**
     * Returns how many nodes must agree for the lock to be held ({@code N/2 + 1}).
     * @return the quorum
     */
    public int getQuorum() {
        return this.quorum;
    }

    /**
     * Returns the nodes that did not agree in the last attempt, as {@code host:port}, with the reason of
     * each (e.g. {@code held by another client}, {@code timed out after 50 ms}, {@code rejected: …}).
     * @return an unmodifiable map in node order
     */
    public Map<String, String> getNodeFailures() {
        return this.nodeFailures;
    }

    /**
     * Returns the instance that holds the lock, when a quorum of nodes refused because they hold it for one instance:
     * its {@code instanceId} ({@code unknown} for another Redlock client's tokens).
     * @return the holder, or empty when the refusals named no single holder (or the nodes could not be read again)
     */
    public Optional<String> getHolder() {
        return Optional.ofNullable(this.holder);
    }

}
