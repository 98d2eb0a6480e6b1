package io.github.redlock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Lead;
import io.github.redlock.chaos.History.LeadEvent;
import io.github.redlock.chaos.History.Operation;

/**
 * What a run's leader election did ({@link LeaderCandidate}), from its candidates' events and the grants of the leader
 * lock: a leader that keeps its lease through the faults has one term, no loss and no change. Two leaders at once are not
 * counted here: they are an {@link Violation.Kind#OVERLAP} of the leader lock, which the checker finds like any other.
 *
 * @param terms the grants of the leader lock, each a term
 * @param leaderWhenFaultsBegan the client process that led when the first fault began, or -1 (none did, or no fault ran)
 * @param changes the terms granted once the first fault began: each a change of leader, or a leader elected again after it
 * lost its lease
 * @param lossRestarts for each lease a leader lost, in order, how many restarts of the fault under way (one that lists them,
 * {@link Fault#restartOffsetsMillis()}) had begun by then: 3 for a loss at the third restart; 0 for a loss during no such
 * fault
 * @param losses each lost lease in words: whose, when, at which restart, and why
 * @param extensions the automatic extensions of leaders' leases that succeeded
 * @param failedExtensions those that failed (each retried while a quarter of the ttl remains)
 * @param repairs the answers of nodes to repairs of leaders' leases (a repair writes a lease again on a node restarted
 * empty)
 * @param repairFailures repairs a node did not answer (not sent, an error, a time-out)
 * @param attempts how many times the candidates asked for the leader lock, leaders' grants among them
 */
record Leadership(long terms, int leaderWhenFaultsBegan, long changes, List<Integer> lossRestarts, List<String> losses, long extensions,
        long failedExtensions, long repairs, long repairFailures, long attempts) {

    /** A run without a leader election. */
    static final Leadership NONE = new Leadership(0, -1, 0, List.of(), List.of(), 0, 0, 0, 0, 0);

    Leadership {
        lossRestarts = List.copyOf(lossRestarts);
        losses = List.copyOf(losses);
    }

    /**
     * The figures of a run.
     * @param leads every candidate's events
     * @param terms the grants of the leader lock
     * @param faults the run's faults
     * @param runStart when the run began, for the times in words
     */
    static Leadership of(List<Lead> leads, List<Operation> terms, List<Fault> faults, long runStart) {
        if (leads.isEmpty() && terms.isEmpty()) {
            return NONE;
        }
        Optional<Long> firstFault = faults.stream().map(Fault::startNanos).min(Comparator.naturalOrder());
        int leader = firstFault.flatMap((start) -> terms.stream().filter((op) -> op.endNanos() <= start && op.heldUntilNanos() >= start)
                .map(Operation::client).findFirst()).orElse(-1);
        long changes = firstFault.map((start) -> terms.stream().filter((op) -> op.endNanos() >= start).count()).orElse(0L);
        List<Integer> lossRestarts = new ArrayList<>();
        List<String> losses = new ArrayList<>();
        leads.stream().filter((lead) -> lead.event() == LeadEvent.LOST).sorted(Comparator.comparingLong(Lead::nanos)).forEach((lead) -> {
            Optional<Fault> during = faults.stream().filter((fault) -> !fault.restartOffsetsMillis().isEmpty())
                    .filter((fault) -> fault.startNanos() <= lead.nanos()).max(Comparator.comparingLong(Fault::startNanos));
            int restarts = during.map((fault) -> (int) fault.restartOffsetsMillis().stream()
                    .filter((offset) -> fault.startNanos() + offset * 1_000_000 <= lead.nanos()).count()).orElse(0);
            String when = during.map((fault) -> (lead.nanos() > fault.endNanos()) ? "after the " + fault.kind() + " ended"
                    : "at restart " + restarts + " of " + fault.restartOffsetsMillis().size() + " of " + fault.kind()).orElse("during no restart");
            lossRestarts.add((during.isPresent() && lead.nanos() <= during.get().endNanos()) ? restarts : 0);
            losses.add(String.format(Locale.ROOT, "client %d lost lease %s at %.1f ms, %s: %s", lead.client(), lead.leaseToken(),
                    (lead.nanos() - runStart) / 1e6, when, lead.detail()));
        });
        return new Leadership(terms.size(), leader, changes, lossRestarts, losses, count(leads, LeadEvent.EXTENDED, null),
                count(leads, LeadEvent.NOT_EXTENDED, null), count(leads, LeadEvent.REPAIR, true), count(leads, LeadEvent.REPAIR, false),
                leads.stream().filter((lead) -> lead.event() == LeadEvent.ATTEMPTS).mapToLong((lead) -> Long.parseLong(lead.detail().trim()))
                        .sum());
    }

    /** The events of a kind; for repairs, those a node answered ({@code ok}) or the others. */
    private static long count(List<Lead> leads, LeadEvent event, Boolean answered) {
        return leads.stream().filter((lead) -> lead.event() == event)
                .filter((lead) -> answered == null || lead.detail().endsWith(" ok") == answered).count();
    }

    /** Whether the run held a leader election. */
    boolean held() {
        return this != NONE && (this.terms > 0 || this.attempts > 0);
    }

    /** How many leases leaders lost before they let go. */
    long lost() {
        return this.losses.size();
    }

    /** The figures on one line. */
    String text() {
        return this.terms + " terms (" + ((this.leaderWhenFaultsBegan >= 0) ? "client " + this.leaderWhenFaultsBegan
                + " led when the faults began" : "nobody led when the faults began") + "), " + this.changes
                + " begun since (changes of leader), " + lost() + " leases lost; " + this.extensions + " extensions ("
                + this.failedExtensions + " failed), " + this.repairs + " repairs answered (" + this.repairFailures + " not), "
                + this.attempts + " attempts by the candidates";
    }

}
