package io.github.redlock.core.observation;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of an observation of one lock operation: an acquisition (retries and waiting included), a
 * release, or an extension. The lock fills it: what was asked when the observation starts (operation, key, mode,
 * ttl), what came of it before it stops (outcome, what each node answered, the quorum, the attempts, the fencing
 * token). An {@link RedlockObservationConvention} turns it into key values.
 * <p>
 * The setters are for the lock; a convention or handler only reads.
 */
public class RedlockObservationContext extends Observation.Context {

    private final Operation operation;

    private final String key;

    private final String mode;

    private final Duration ttl;

    private final boolean automatic;

    private volatile String outcome = "unknown";

    private volatile Map<String, String> nodes = Map.of();

    private volatile int agreed;

    private volatile int quorum;

    private volatile int attempts;

    private volatile long fencingToken;

    private volatile @Nullable String holder;

    /**
     * Creates the context of an operation about to start.
     * @param operation what is observed
     * @param key the lock's key as the caller named it (several keys joined by commas)
     * @param mode {@code exclusive}, {@code read}, {@code write} or {@code multi} (several keys at once)
     * @param ttl the time to live asked for; for a release, the lease's
     * @param automatic for an extension, whether the lease's automatic extension sent it
     */
    public RedlockObservationContext(Operation operation, String key, String mode, Duration ttl, boolean automatic) {
        this.operation = operation;
        this.key = key;
        this.mode = mode;
        this.ttl = ttl;
        this.automatic = automatic;
    }

    /**
     * Returns the operation observed.
     * @return the operation
     */
    public Operation getOperation() {
        return this.operation;
    }

    /**
     * Returns the lock's key as the caller named it, without the prefix; several keys are joined by commas.
     * Unbounded: never a metric tag.
     * @return the key
     */
    public String getKey() {
        return this.key;
    }

    /**
     * Returns the kind of lock: {@code exclusive}, {@code read}, {@code write}, or {@code multi} (an exclusive
     * lock on several keys at once).
     * @return the mode
     */
    public String getMode() {
        return this.mode;
    }

    /**
     * Returns the time to live asked for (for a release, the lease's own).
     * @return the ttl
     */
    public Duration getTtl() {
        return this.ttl;
    }

    /**
     * Returns whether an extension was sent by the lease's automatic extension rather than by a caller; false
     * for the other operations.
     * @return whether it was automatic
     */
    public boolean isAutomatic() {
        return this.automatic;
    }

    /**
     * Returns what came of the operation: {@code acquired} or {@code failed} (not acquired within the wait time)
     * for an acquisition; {@code released} or {@code not-held} (a quorum no longer held it) for a release;
     * {@code extended}, {@code failed} or {@code refused} (a majority said the key is no longer the lease's: it is
     * lost) for an extension; for any of them {@code cancelled} (the caller gave up, e.g. cancelled a future or was
     * interrupted) or {@code error} (it could not be carried out, e.g. the lock was closed); {@code unknown} until
     * then.
     * @return the outcome
     */
    public String getOutcome() {
        return this.outcome;
    }

    /**
     * Sets the outcome.
     * @param outcome the outcome, one of those {@link #getOutcome()} lists
     */
    public void setOutcome(String outcome) {
        this.outcome = outcome;
    }

    /**
     * Returns what each node had answered to the operation's last round when it was decided (the decision comes
     * as soon as a quorum agreed, or can no longer agree), by {@code host:port}, in the nodes' order:
     * {@code granted}, {@code denied} (held by another client, or no longer the lease's), {@code rejected} (not
     * sent: disconnected or not voting), {@code timeout}, {@code error}, {@code skipped} (the acquisition never
     * reached it) or {@code pending} (no answer when the decision was made). Empty when no round was sent.
     * @return the answers
     */
    public Map<String, String> getNodes() {
        return this.nodes;
    }

    /**
     * Sets what the nodes answered.
     * @param nodes the answers by {@code host:port}
     */
    public void setNodes(Map<String, String> nodes) {
        this.nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
    }

    /**
     * Returns how many nodes had said yes in the operation's last round when it was decided.
     * @return the nodes that agreed
     */
    public int getAgreed() {
        return this.agreed;
    }

    /**
     * Sets how many nodes said yes.
     * @param agreed the nodes that agreed
     */
    public void setAgreed(int agreed) {
        this.agreed = agreed;
    }

    /**
     * Returns how many nodes must agree: {@code N/2 + 1}; 0 until known.
     * @return the quorum
     */
    public int getQuorum() {
        return this.quorum;
    }

    /**
     * Sets the quorum.
     * @param quorum the nodes that must agree
     */
    public void setQuorum(int quorum) {
        this.quorum = quorum;
    }

    /**
     * Returns how many attempts an acquisition made (1 without waiting); 0 for the other operations.
     * @return the attempts
     */
    public int getAttempts() {
        return this.attempts;
    }

    /**
     * Sets how many attempts an acquisition made.
     * @param attempts the attempts
     */
    public void setAttempts(int attempts) {
        this.attempts = attempts;
    }

    /**
     * Returns the lease's fencing token, or 0 when it has none (fencing off, a read lease, or not acquired).
     * @return the fencing token
     */
    public long getFencingToken() {
        return this.fencingToken;
    }

    /**
     * Sets the lease's fencing token.
     * @param fencingToken the token, or 0 for none
     */
    public void setFencingToken(long fencingToken) {
        this.fencingToken = fencingToken;
    }

    /**
     * Returns who holds the lock a failed acquisition found taken: the instance id in the token a quorum of nodes refused
     * it for ({@code unknown} for another client's token), read again from the nodes once the acquisition failed.
     * @return the holder, or null when the acquisition did not fail, or the refusals named no single holder
     */
    public @Nullable String getHolder() {
        return this.holder;
    }

    /**
     * Sets who holds the lock a failed acquisition found taken.
     * @param holder the holder, or null
     */
    public void setHolder(@Nullable String holder) {
        this.holder = holder;
    }

    /** A lock operation that is observed. */
    public enum Operation {

        /** An acquisition, from the first attempt to the decision, waiting between attempts included. */
        ACQUIRE,

        /** A release (or a release that leaves the keys to expire later). */
        RELEASE,

        /** An extension, by a caller or by the lease's automatic extension. */
        EXTEND

    }

}
