package io.github.redlock.core.internal.node;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link NodeReply}: the replies a node command can have, their outcome names for the
 * {@code redlock.node.command} meter, and the classification of Lettuce's failures into time-outs, rejections
 * (never sent) and errors.
 */
class NodeReplyTests {

    @Test
    void aGrantIsAYesWithoutValue() {
        assertThat(NodeReply.GRANTED).isEqualTo(new NodeReply(NodeReply.Outcome.GRANTED, "granted", -1));
        assertThat(NodeReply.GRANTED.granted()).isTrue();
        assertThat(NodeReply.GRANTED.metricOutcome()).isEqualTo("ok");
    }

    @Test
    void aDenialIsANoThatWasAnswered() {
        assertThat(NodeReply.DENIED).isEqualTo(new NodeReply(NodeReply.Outcome.DENIED, "held by another client", -1));
        assertThat(NodeReply.DENIED.granted()).isFalse();
        assertThat(NodeReply.DENIED.metricOutcome()).isEqualTo("ok");
    }

    @Test
    void aFollowUpNotSentIsSkippedAndNotMetered() {
        assertThat(NodeReply.NOT_SENT).isEqualTo(new NodeReply(NodeReply.Outcome.SKIPPED, "no SET was sent to it", -1));
        assertThat(NodeReply.NOT_SENT.granted()).isFalse();
        assertThat(NodeReply.NOT_SENT.metricOutcome()).isNull();
    }

    @Test
    void anExtensionsYesCarriesHowLongTheNodeKeepsTheKey() {
        assertThat(NodeReply.held(2_500)).isEqualTo(new NodeReply(NodeReply.Outcome.GRANTED, "granted", 2_500));
        assertThat(NodeReply.held(2_500).granted()).isTrue();
    }

    @Test
    void aDenialCanSayWhenTheHoldersKeyExpires() {
        assertThat(NodeReply.deniedFor(1_200)).isEqualTo(new NodeReply(NodeReply.Outcome.DENIED, "held by another client", 1_200));
        assertThat(NodeReply.deniedFor(-1).value()).isEqualTo(-1);
        assertThat(NodeReply.deniedFor(0).granted()).isFalse();
    }

    @Test
    void aFencedYesCarriesTheCounter() {
        assertThat(NodeReply.counted(1_732_000_000_000_001L))
                .isEqualTo(new NodeReply(NodeReply.Outcome.GRANTED, "granted", 1_732_000_000_000_001L));
    }

    @Test
    void aNodeNeverConnectedRejectsWithWhy() {
        NodeReply reply = NodeReply.notConnected("disconnected");
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.REJECTED, "rejected: disconnected", -1));
        assertThat(reply.metricOutcome()).isEqualTo("rejected");
        assertThat(reply.granted()).isFalse();
    }

    @Test
    void aNodeThatMayNotVoteRejectsWithWhy() {
        NodeReply reply = NodeReply.notVoting("restarted 3 s ago");
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.REJECTED, "not voting: restarted 3 s ago", -1));
        assertThat(reply.metricOutcome()).isEqualTo("rejected");
    }

    @Test
    void aSilentNodeTimesOutAfterTheNodeTimeoutInWholeMilliseconds() {
        NodeReply reply = NodeReply.timedOut(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.TIMEOUT, "timed out after 50 ms", -1));
        assertThat(reply.metricOutcome()).isEqualTo("timeout");
        assertThat(NodeReply.timedOut(1_999_999).reason()).isEqualTo("timed out after 1 ms");
    }

    @Test
    void lettucesCommandTimeoutIsATimeout() {
        NodeReply reply = NodeReply.failure(new RedisCommandTimeoutException("Command timed out after 1 minute(s)"));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.TIMEOUT, "timed out: Command timed out after 1 minute(s)", -1));
        assertThat(reply.metricOutcome()).isEqualTo("timeout");
    }

    @Test
    void theCauseOfACompletionExceptionIsClassified() {
        NodeReply reply = NodeReply.failure(new CompletionException(new RedisCommandTimeoutException("Command timed out")));
        assertThat(reply.outcome()).isEqualTo(NodeReply.Outcome.TIMEOUT);
        assertThat(reply.reason()).isEqualTo("timed out: Command timed out");
    }

    @Test
    void aCommandRefusedWhileDisconnectedIsARejection() {
        NodeReply reply = NodeReply.failure(new RedisException("Currently not connected. Commands are rejected."));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.REJECTED,
                "rejected: Currently not connected. Commands are rejected.", -1));
        assertThat(reply.metricOutcome()).isEqualTo("rejected");
    }

    @Test
    void aCommandRefusedByAFullRequestQueueIsARejection() {
        String message = "Request queue size exceeded: 8192. Commands are not accepted until the queue size drops.";
        NodeReply reply = NodeReply.failure(new CompletionException(new RedisException(message)));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.REJECTED, "rejected: " + message, -1));
    }

    @Test
    void aClosedConnectionIsAnError() {
        NodeReply reply = NodeReply.failure(new RedisException("Connection closed"));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.ERROR, "error: Connection closed", -1));
        assertThat(reply.metricOutcome()).isEqualTo("error");
    }

    @Test
    void onlyLettucesOwnRejectionCountsAsNeverSent() {
        // A subclass (a failed connection, a server error) may have reached the node, whatever its text says.
        assertThat(NodeReply.failure(new RedisConnectionException("Commands are rejected")).outcome())
                .isEqualTo(NodeReply.Outcome.ERROR);
        assertThat(NodeReply.failure(new RedisCommandExecutionException("ERR not accepted")).outcome())
                .isEqualTo(NodeReply.Outcome.ERROR);
    }

    @Test
    void aScriptErrorIsAnError() {
        String message = "ERR user_script:4: Script attempted to access nonexistent global variable 'now' script: "
                + "e0e1f9fabfc9d4800c877a703b823ac0578ff831, on @user_script:4.";
        NodeReply reply = NodeReply.failure(new CompletionException(new RedisCommandExecutionException(message)));
        assertThat(reply).isEqualTo(new NodeReply(NodeReply.Outcome.ERROR, "error: " + message, -1));
    }

    @Test
    void aFailureWithoutMessageIsAnErrorSayingNull() {
        assertThat(NodeReply.failure(new IllegalStateException()).reason()).isEqualTo("error: null");
    }

    @Test
    void aCompletionExceptionWithoutCauseIsClassifiedItself() {
        assertThat(NodeReply.failure(new CompletionException("gave up", null)))
                .isEqualTo(new NodeReply(NodeReply.Outcome.ERROR, "error: gave up", -1));
    }

    @Test
    void theOutcomesAreTheMetersNamesInLowerCase() {
        assertThat(NodeReply.Outcome.values()).extracting(Enum::name)
                .containsExactly("GRANTED", "DENIED", "REJECTED", "TIMEOUT", "ERROR", "SKIPPED");
    }

}
