package io.github.redlock.core;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.engine.Tokens;
import io.github.redlock.core.internal.lease.Lease;
import io.github.redlock.core.internal.lease.LeaseHandle;
import io.github.redlock.core.internal.lease.LeaseOperations;
import io.github.redlock.core.internal.lease.NodeExpiries;
import io.github.redlock.core.internal.node.NodeReply;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;

/**
 * Leases made without nodes, for unit tests of what holds or waits for them: every node is known to hold the key for
 * a given time, and releases go to the given {@link LeaseOperations}.
 */
public final class TestLeases {

    private TestLeases() {
    }

    /** An exclusive lease of {@code key} that three nodes hold for {@code validNanos} more. */
    public static RedlockLease lease(LeaseOperations operations, LockType type, String key, long validNanos) {
        NodeExpiries expiries = new NodeExpiries(3, System.nanoTime());
        long until = System.nanoTime() + validNanos;
        for (int i = 0; i < 3; i++) {
            expiries.raise(i, until);
        }
        String token = Tokens.newToken();
        LockType.Keys keys = (type == LockType.MULTI) ? LockType.multiKeys(java.util.List.of(key), java.util.List.of("redlock:" + key), null)
                : type.keys("redlock:" + key, null);
        QuorumCall acquisition = new QuorumCall(new String[] { "a:1", "b:1", "c:1" }, 2, new ManualTimer(), TimeUnit.HOURS.toNanos(1),
                NodeReply.timedOut(TimeUnit.HOURS.toNanos(1)), "set", null);
        LeaseHandle handle = new LeaseHandle(type, key, keys, token.getBytes(StandardCharsets.US_ASCII), acquisition, expiries, 2,
                10_000, 0, new String[3]);
        return new Lease(operations, handle, key, token);
    }

}
