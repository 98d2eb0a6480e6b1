package io.github.redlock.core.internal.node;

import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Whether a command that would count toward a lease may go to a node now, decided before anything is sent (so nothing
 * is owed for a refusal, and nothing is logged or thrown): an acquisition only while the node votes, its group confirms
 * the server it votes through, and fewer than {@link NodeLimits#SET_LIMIT} replies are pending; an extension only with
 * room in the queue, a restart record confirmed lately, and the group's confirmation. Releases are never refused.
 */
final class NodeAdmission {

    private final NodeVote vote;

    private final NodeKind kind;

    /** Commands sent to the node and not yet answered: grows while it is frozen. */
    private final AtomicInteger awaitingReply;

    private final NodeReply unresponsive = NodeReply.notConnected(NodeLimits.SET_LIMIT
            + " commands await a reply (node frozen or overloaded)");

    NodeAdmission(NodeVote vote, NodeKind kind, AtomicInteger awaitingReply) {
        this.vote = vote;
        this.kind = kind;
        this.awaitingReply = awaitingReply;
    }

    /**
     * Why an acquisition may not be sent now, or null when it may: the node does not vote (unchecked since it connected,
     * or quarantined), its group does not confirm its server ({@link NodeKind#unconfirmed()}), or too many replies are
     * pending.
     */
    @Nullable NodeReply refusesAcquisition() {
        if (!this.vote.mayVote()) {
            return this.vote.refusal(this.kind.isConnected());
        }
        NodeReply unconfirmed = unconfirmed();
        return (unconfirmed != null) ? unconfirmed : unresponsive();
    }

    /**
     * Why an extension may not be sent now, or null when it may: too many replies are pending (the queue keeps room for
     * every release), this client could not confirm the node's restart record lately (a lease extended there might
     * outlive the records that tell a later check of the node that it was in use), or its group does not confirm it.
     */
    @Nullable NodeReply refusesExtension() {
        NodeReply unresponsive = unresponsive();
        if (unresponsive != null) {
            return unresponsive;
        }
        if (!this.vote.recordedNow()) {
            return NodeReply.notVoting(this.vote.unrecorded());
        }
        return unconfirmed();
    }

    /**
     * Through a Sentinel node's server while a majority of its sentinels has not freshly confirmed it as the master (a
     * cluster's view while its other masters have not): it may be a deposed master that still answers as one, beside
     * a promoted replica that counts in another client.
     */
    private @Nullable NodeReply unconfirmed() {
        String unconfirmed = this.kind.unconfirmed();
        return (unconfirmed != null) ? NodeReply.notVoting(unconfirmed) : null;
    }

    private @Nullable NodeReply unresponsive() {
        return (this.awaitingReply.get() < NodeLimits.SET_LIMIT) ? null : this.unresponsive;
    }

}
