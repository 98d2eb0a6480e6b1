package io.github.redlock.core.internal.lease;

import java.util.Map;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.node.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of an acquisition: a lease, or the node replies of the last attempt (null when no attempt
 * was decided) and what else went wrong.
 */
public record Attempt(@Nullable RedlockLease lease, @Nullable QuorumCall call, @Nullable String problem, int attempts, boolean retrying) {

    public static Attempt acquired(RedlockLease lease) {
        return new Attempt(lease, null, null, 1, false);
    }

    public static Attempt failed(@Nullable QuorumCall call, @Nullable String problem, boolean retrying) {
        return new Attempt(null, call, problem, 1, retrying);
    }

    public Attempt afterAttempts(int count) {
        return new Attempt(this.lease, this.call, this.problem, count, false);
    }

    public int agreed() {
        return (this.call != null) ? this.call.granted() : 0;
    }

    public Map<String, String> failures() {
        return (this.call != null) ? this.call.failures() : Map.of();
    }

}
