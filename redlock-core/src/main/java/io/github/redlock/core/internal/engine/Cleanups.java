package io.github.redlock.core.internal.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.FollowUps;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.script.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The clean-up of a failed attempt: its entries deleted on every node it may have reached, before the caller learns of
 * the failure; an exclusive key's clean-up also records that this client waits for it where another client holds it
 * ({@code cleanup.lua}), and a final one (or one that may have freed the lock) wakes the waiters.
 */
final class Cleanups {

    private final NodeSet nodes;

    private final FollowUps followUps;

    /** This client's id in the nodes' records of who waits for an exclusive key. */
    private final byte[] clientId;

    Cleanups(NodeSet nodes, FollowUps followUps, byte[] clientId) {
        this.nodes = nodes;
        this.followUps = followUps;
        this.clientId = clientId;
    }

    /** Whether a failed attempt may have freed the lock, as a failed handoff may: its clean-up then publishes. */
    enum Lock {

        NOT_FREED, MAY_HAVE_FREED

    }

    /**
     * A failed attempt: the lease's entries are deleted on every node the acquisition may have reached,
     * including those that said no or timed out; enqueued before the caller learns of the failure, so that its
     * next attempt follows the clean-up on every connection.
     * @param report the call whose replies the failure reports
     * @param lock whether the attempt may have freed the lock (a failed handoff): its clean-up then publishes
     */
    CompletableFuture<Attempt> failed(LockType type, LockType.Keys keys, byte[] tokenBytes, QuorumCall acquisition,
            QuorumCall report, @Nullable String problem, long ttlMillis, long deadlineNanos, Lock lock) {
        boolean retrying = System.nanoTime() - deadlineNanos < 0;
        Attempt failed = Attempt.failed(report, problem, retrying);
        boolean quiet = retrying && lock == Lock.NOT_FREED;
        byte[][] marking = keys.cleanupMarking();
        // A read or write lock's retry clean-up is never owed: sent late, it would delete what the next attempt set
        // under the same token. Every other attempt's token is its own (LockType#keepsTokenAcrossAttempts).
        long owedUntil = (retrying && type.keepsTokenAcrossAttempts()) ? 0
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        return this.nodes.inProgramOrder(() -> {
            // sent here, not through release(): one hop at most
            // A retry's clean-up does not publish: waiters, this one included, would wake each other in turn
            // while a holder keeps the lock on a bare quorum. A final one (the caller gave up) does.
            if (marking != null) {
                // An exclusive or multi-key clean-up also records, where another token holds a key, that this client
                // waits for it: until its deadline, and for at least a ttl (a caller that does not wait may poll again).
                long wantsMillis = ttlMillis + Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
                byte[][] args = cleanupArgs(keys, tokenBytes, wantsMillis, quiet);
                this.followUps.release(LuaScript.CLEANUP, marking, args, acquisition, owedUntil);
                return failed;
            }
            byte[][] args = quiet ? new byte[][] { tokenBytes } : keys.releaseArgs(tokenBytes);
            this.followUps.release(quiet ? type.retryCleanupScript() : type.releaseScript(), keys.cleanup(quiet), args, acquisition, owedUntil);
            return failed;
        });
    }

    /** The arguments of {@code cleanup.lua}: the token, the client, how long it wants the lock, and the channels of a final one. */
    private byte[][] cleanupArgs(LockType.Keys keys, byte[] tokenBytes, long wantsMillis, boolean quiet) {
        int channels = quiet ? 0 : keys.channels().length;
        byte[][] args = new byte[3 + channels][];
        args[0] = tokenBytes;
        args[1] = this.clientId;
        args[2] = Long.toString(Math.max(1, wantsMillis)).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(keys.channels(), 0, args, 3, channels);
        return args;
    }

}
