package io.github.redlock.core.internal.guard;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the independence check ({@link Independence}): a replica never votes; of two entries that reach one server
 * process (the same {@code run_id}, or a master of a cluster listed again), the one listed first votes, whichever is
 * checked first; entries whose {@code run_id} is not known yet do not count.
 */
class IndependenceTests {

    private static final List<String> NAMES = List.of("a:1", "b:2", "c:3", "d:4");

    @Test
    void aReplicaDoesNotVote() {
        Independence.Finding finding = Independence.check(1, false, "r1", NAMES, seen(null, null, null, null));
        assertThat(finding.reason()).isEqualTo("a replica, not a master: Redlock needs independent masters");
        assertThat(finding.later()).isEmpty();
    }

    @Test
    void independentMastersAllVote() {
        Independence.Finding finding = Independence.check(2, true, "r3", NAMES, seen("r1", "r2", "r3", "r4"));
        assertThat(finding.reason()).isNull();
        assertThat(finding.later()).isEmpty();
    }

    @Test
    void ofTwoEntriesOfOneServerTheOneListedFirstVotesWhicheverIsCheckedFirst() {
        // Checked second, the later entry finds the earlier one.
        Independence.Finding later = Independence.check(3, true, "r1", NAMES, seen("r1", "r2", "r3", "r1"));
        assertThat(later.reason()).isEqualTo("the same server as a:1 (run_id r1), listed twice");
        // Checked second, the earlier entry excludes the later one and votes.
        Independence.Finding earlier = Independence.check(0, true, "r1", NAMES, seen("r1", "r2", "r1", "r1"));
        assertThat(earlier.reason()).isNull();
        assertThat(earlier.later()).containsOnlyKeys(2, 3).containsEntry(2, "the same server as a:1 (run_id r1), listed twice");
    }

    @Test
    void aMasterOfAClusterListedAgainIsTheSameServer() {
        Independence.Finding finding = Independence.check(1, true, "m2", NAMES, seen("m1+m2+m3", null, null, null));
        assertThat(finding.reason()).isEqualTo("the same server as a:1 (run_id m2), listed twice");
        assertThat(Independence.sharesServer("m1+m2+m3", "m3+m4")).as("two entries of one cluster").isTrue();
        assertThat(Independence.sharesServer("m1+m2", "m3+m4")).as("two clusters").isFalse();
        assertThat(Independence.sharesServer("m1", "m12")).isFalse();
        assertThat(Independence.sharesServer("m1", null)).as("not seen yet").isFalse();
    }

    private static List<String> seen(String... runIds) {
        return Arrays.asList(runIds);
    }

}
