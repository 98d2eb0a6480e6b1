package io.github.redlock.core.internal.lease;

import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * An operator's revoke of an exclusive lock whose holder is gone: {@code revoke.lua} on every node at once, each
 * bounded by the node timeout, deleting the lock's key whoever holds it (where it is a lock: a string with a time to
 * live) and publishing the release that wakes waiters. Its holder, if it still runs, finds the lock gone at its next
 * extension. Unlike a release it is never owed to a node that cannot be reached now: sent later, it would delete a
 * lease granted after the operator asked.
 */
public final class Revocation {

    private final NodeSet nodes;

    public Revocation(NodeSet nodes) {
        this.nodes = nodes;
    }

    /**
     * Sends the revoke of {@code redisKey} to every node at once; each node's reply is a yes where it deleted a lock.
     * Sends directly from any thread: nothing of this client's needs to reach a node before it.
     * @param redisKey the exclusive lock's key, prefix included
     * @param expectedHolder the instance id whose token alone is deleted, or null to delete whoever's
     * @return the call, whose {@link QuorumCall#allReplies()} completes at the latest at the node timeout, when
     * {@link QuorumCall#granted()} is how many nodes deleted the lock
     */
    public QuorumCall revoke(String redisKey, @Nullable String expectedHolder) {
        LockType.Keys keys = LockType.EXCLUSIVE.keys(redisKey, null);
        byte[][] args = (expectedHolder != null)
                ? new byte[][] { keys.channels()[0], expectedHolder.getBytes(java.nio.charset.StandardCharsets.UTF_8) }
                : new byte[][] { keys.channels()[0] };
        QuorumCall call = this.nodes.newCall("revoke");
        for (int i = 0; i < this.nodes.size(); i++) {
            this.nodes.node(i).eval(LuaScript.REVOKE, keys.release(), args, call, i);
        }
        return call;
    }

}
