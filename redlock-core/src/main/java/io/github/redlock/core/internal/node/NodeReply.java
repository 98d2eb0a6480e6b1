package io.github.redlock.core.internal.node;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;

/**
 * What one node answered to one command of the algorithm: a yes, a no, or why there was no answer; for a yes
 * to an extension, also how long the node will keep the key, and to a fenced acquisition, the node's fencing
 * counter. Internal; the outcome names are those of the {@code redlock.node.command} meter.
 *
 * @param outcome what happened
 * @param reason the outcome in words, for errors
 * @param value for a yes to an extension, the key's time to live on the node afterwards in ms; to a fenced
 * acquisition, the node's fencing counter afterwards; else -1
 */
public record NodeReply(Outcome outcome, String reason, long value) {

    NodeReply(Outcome outcome, String reason) {
        this(outcome, reason, -1);
    }

    /** The node did what was asked (set, deleted or extended the key). */
    static final NodeReply GRANTED = new NodeReply(Outcome.GRANTED, "granted");

    /** The node answered, but the key is held by another client (or no longer ours). */
    static final NodeReply DENIED = new NodeReply(Outcome.DENIED, "held by another client");

    /** A follow-up not sent to a node that never received the SET: there is nothing of ours to touch. */
    public static final NodeReply NOT_SENT = new NodeReply(Outcome.SKIPPED, "no SET was sent to it");

    /** A yes to an extension: the node keeps the key for {@code heldMillis} more. */
    static NodeReply held(long heldMillis) {
        return new NodeReply(Outcome.GRANTED, "granted", heldMillis);
    }

    /** A no to an acquisition from a node that says when the holder's key expires: in {@code pttl} ms (-1: never). */
    public static NodeReply deniedFor(long pttl) {
        return new NodeReply(Outcome.DENIED, "held by another client", pttl);
    }

    /** A yes to a fenced acquisition: the node's fencing counter is {@code counter} afterwards. */
    static NodeReply counted(long counter) {
        return new NodeReply(Outcome.GRANTED, "granted", counter);
    }

    /** The reply of a node that has had no connection since start-up, with why. */
    static NodeReply notConnected(String why) {
        return new NodeReply(Outcome.REJECTED, "rejected: " + why);
    }

    /** The reply of a node that may not vote now (quarantined, or not checked since it connected), with why. */
    static NodeReply notVoting(String why) {
        return new NodeReply(Outcome.REJECTED, "not voting: " + why);
    }

    /** The reply of a node still silent when the node timeout passed. */
    public static NodeReply timedOut(long nodeTimeoutNanos) {
        return new NodeReply(Outcome.TIMEOUT, "timed out after " + TimeUnit.NANOSECONDS.toMillis(nodeTimeoutNanos) + " ms");
    }

    /** The outcome as the {@code redlock.node.command} meter names it; null when no command was sent. */
    @Nullable String metricOutcome() {
        return switch (this.outcome) {
            case GRANTED, DENIED -> "ok";
            case REJECTED -> "rejected";
            case TIMEOUT -> "timeout";
            case ERROR -> "error";
            case SKIPPED -> null;
        };
    }

    public boolean granted() {
        return this.outcome == Outcome.GRANTED;
    }

    /**
     * Classifies a failed command.
     * @param failure what the command's future completed with
     * @return the reply
     */
    static NodeReply failure(Throwable failure) {
        Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
        if (cause instanceof NotSent notSent) {
            return notSent.reply;
        }
        if (cause instanceof RedisCommandTimeoutException) {
            return new NodeReply(Outcome.TIMEOUT, "timed out: " + cause.getMessage());
        }
        String message = String.valueOf(cause.getMessage());
        if (cause.getClass() == RedisException.class
                && (message.contains("Commands are rejected") || message.contains("not accepted"))) {
            return new NodeReply(Outcome.REJECTED, "rejected: " + message);
        }
        return new NodeReply(Outcome.ERROR, "error: " + message);
    }

    /**
     * What a command that was not sent (no connection to its node, or to the master of its slot) hands its callback in
     * place of a reply: the node's reply while it is not connected, with why.
     */
    static final class NotSent extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient NodeReply reply;

        NotSent(NodeReply reply) {
            super(reply.reason(), null, false, false); // no stack trace: an expected state, not a bug
            this.reply = reply;
        }

    }

    /** The outcome of one node command. */
    public enum Outcome {

        /** Answered yes. */
        GRANTED,

        /** Answered no. */
        DENIED,

        /** Not sent: the node is disconnected or its queue is full. */
        REJECTED,

        /** Sent, no answer within the node timeout. */
        TIMEOUT,

        /** The node or the connection reported an error. */
        ERROR,

        /** Not sent on purpose: the node never received the SET this command would follow. */
        SKIPPED

    }

}
