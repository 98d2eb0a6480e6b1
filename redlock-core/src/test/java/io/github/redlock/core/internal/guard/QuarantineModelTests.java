package io.github.redlock.core.internal.guard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.guard.QuarantinePolicy.Verdict;
import io.github.redlock.core.internal.node.ServerInfo;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart rule as a property, over generated histories of a small model that drives the real policy functions
 * ({@link QuarantinePolicy#check}, {@link QuarantinePolicy#trustedReader}, {@link
 * QuarantinePolicy#recordsToConfirm}, {@link QuarantinePolicy#readersNeeded}) the way {@link RestartGuard} does: N
 * nodes (3, 5, 7), three clients with different max-ttls, each reaching only some nodes at a time (partitions that
 * change) and now and then replaced by a new instance that remembers nothing, leases on one key, record writes that
 * may fail, and nodes that restart empty, restart with their data (durable), or fail over to a replica that lacks
 * the latest key and later restarts from its own log; every client writes its records again every quarter of its
 * quarantine, each write failing one time in ten. The property: no two leases are valid at once (no node votes for
 * a grant while a lease granted before its restart may still be valid).
 * <p>
 * Each history is seeded, and a violation names its seed and steps. The model keeps the rule's one assumption: no two
 * nodes lose their memory (an empty restart or a failover) within one record lifetime of each other. The same model
 * with the former reads (two readers of any kind, no confirmed records) finds the first hole of issue 38, and with the
 * former markers (any other process's marker as proof) the second; without the assumption, the rule's own model finds
 * the case that docs/safety.md names as its limit.
 */
class QuarantineModelTests {

    private static final int HISTORIES = 1_500;

    private static final int STEPS = 160;

    @Test
    void noTwoLeasesAreEverValidAtOnceUnderTheRule() {
        for (int nodes : new int[] { 3, 5, 7 }) {
            Result result = explore(nodes, Policy.RULE, Faults.ALL, true, HISTORIES);
            assertThat(result.violations).as("%d nodes: %s", nodes, result.first).isEmpty();
            assertThat(result.grants).as("%d nodes: the model grants leases", nodes).isGreaterThan(HISTORIES);
            assertThat(result.quarantined).as("%d nodes: and quarantines restarted nodes", nodes).isGreaterThan(HISTORIES / 10);
        }
    }

    /** Hole 1: a check that reads two nodes of five, which need not hold the record a holder's client wrote on two others. */
    @Test
    void theFormerReadsLetARestartedNodeVoteWhenItsRecordsAreOnNodesTheCheckDidNotRead() {
        Result result = explore(5, Policy.FORMER_READS, Faults.EMPTY_RESTARTS, true, HISTORIES * 4);
        assertThat(result.violations).as("the model finds the hole").isNotEmpty();
    }

    /** Hole 2: a promoted replica that restarts from its own log, with the marker it received from its former master. */
    @Test
    void theFormerMarkerLetsARestartedPromotedReplicaVoteOnItsFormerMastersMarker() {
        Result result = explore(3, Policy.FORMER_MARKER, Faults.FAILOVERS, true, HISTORIES);
        assertThat(result.violations).as("the model finds the hole").isNotEmpty();
        assertThat(result.violations).allSatisfy((violation) -> assertThat(violation).contains("restart kind 2"));
        assertThat(explore(3, Policy.RULE, Faults.FAILOVERS, true, HISTORIES).violations).isEmpty();
    }

    /**
     * Records that cannot be written: a client whose record writes fail for longer than its records live keeps
     * granting through a node whose records expired, and a check after that node's restart finds nothing. The rule bounds
     * the node's vote after the last confirmed write; without the bound, the model finds the hole.
     */
    @Test
    void withoutTheRecordDeadlineAClientWhoseWritesFailOutlivesItsRecords() {
        Result result = explore(3, Policy.NO_RECORD_DEADLINE, Faults.EMPTY_RESTARTS, true, HISTORIES * 4);
        assertThat(result.violations).as("the model finds the hole").isNotEmpty();
        assertThat(explore(3, Policy.RULE, Faults.EMPTY_RESTARTS, true, HISTORIES * 4).violations).isEmpty();
    }

    /**
     * The limit docs/safety.md states: two nodes that lose their memory close together, each the only node of the
     * other's intersection that a client reaches, look unused. Without the assumption, the model finds it.
     */
    @Test
    void twoNodesThatLoseTheirMemoryCloseTogetherAreTheRulesStatedLimit() {
        Result result = explore(5, Policy.RULE, Faults.EMPTY_RESTARTS, false, HISTORIES * 4);
        assertThat(result.violations).as("outside the assumption").isNotEmpty();
        assertThat(result.violations).allSatisfy((violation) -> assertThat(violation).contains("two memory losses within a record lifetime"));
    }

    private static Result explore(int nodes, Policy policy, Faults faults, boolean assumption, int histories) {
        Result result = new Result();
        for (int seed = 0; seed < histories; seed++) {
            new History(nodes, policy, faults, assumption, new Random(seed * 7919L + nodes), result, seed).run();
        }
        return result;
    }

    /** Which policy decides. */
    private enum Policy {

        /** The rule: trusted readers, confirmed records, a marker of the process just before on the same server. */
        RULE,

        /** The rule's markers, with the reads before issue 38: floor(N/2) answers of any nodes, records not confirmed. */
        FORMER_READS,

        /** The rule's reads, with the markers before issue 38: set once, and a marker of any other process is proof. */
        FORMER_MARKER,

        /** The rule, without the bound on a node's vote after the last confirmed write of the client's record of it. */
        NO_RECORD_DEADLINE

    }

    /** Which restarts happen. */
    private enum Faults {

        ALL, EMPTY_RESTARTS, FAILOVERS

    }

    private static final class Result {

        final List<String> violations = new ArrayList<>();

        @Nullable String first;

        int grants;

        int quarantined;

    }

    /** A record of one client of one node's process, as a node holds it. */
    private record Record(String runId, long maxTtl, long quarantine, long writtenAt) {
    }

    private static final class Node {

        final int index;

        int incarnation;

        String runId;

        long startedAt;

        boolean durable;

        boolean promoted;

        @Nullable String marker;

        /** Which server answers for the node: a failover moves it to another one (a Sentinel group's replica). */
        int server;

        /** records[j]: this node's records of node j. */
        List<List<Record>> records = new ArrayList<>();

        int holder = -1;

        long expiresAt;

        /** When it last lost its memory (an empty restart or a failover), or a time long ago. */
        long lostMemoryAt = Long.MIN_VALUE / 2;

        Node(int index, int nodes) {
            this.index = index;
            this.runId = "n" + index + "p0";
            for (int j = 0; j < nodes; j++) {
                this.records.add(new ArrayList<>());
            }
        }

        void newProcess(long now) {
            this.incarnation++;
            this.runId = "n" + this.index + "p" + this.incarnation;
            this.startedAt = now;
        }

    }

    private static final class Client {

        final long maxTtl;

        final long quarantine;

        final boolean[] reach;

        /** Per node: the run_id this client decided on, from when that process votes, and whether it is checked now. */
        final String[] decided;

        final long[] votesFrom;

        final boolean[] checked;

        long refreshedAt;

        /** Per node: until when the last confirmed write of this client's record of it lets it vote (RestartGuard). */
        final long[] recordedUntil;

        /** Until when every record write of this client fails (its user may not run the script, say). */
        long writesFailUntil;

        Client(int nodes, long maxTtl) {
            this.maxTtl = maxTtl;
            this.quarantine = maxTtl + 1_000;
            this.reach = new boolean[nodes];
            Arrays.fill(this.reach, true);
            this.decided = new String[nodes];
            this.votesFrom = new long[nodes];
            this.checked = new boolean[nodes];
            this.recordedUntil = new long[nodes];
        }

    }

    /** A lease granted in the model. */
    private record Lease(int id, int client, long grantedAt, long validUntil, List<String> through) {
    }

    private static final class History {

        private final int count;

        private final Policy policy;

        private final Faults faults;

        private final boolean assumption;

        private final Random random;

        private final Result result;

        private final int seed;

        private final Node[] nodes;

        private final Client[] clients;

        private final List<Lease> leases = new ArrayList<>();

        private final List<String> steps = new ArrayList<>();

        private long now = 100_000;

        History(int count, Policy policy, Faults faults, boolean assumption, Random random, Result result, int seed) {
            this.count = count;
            this.policy = policy;
            this.faults = faults;
            this.assumption = assumption;
            this.random = random;
            this.result = result;
            this.seed = seed;
            this.nodes = new Node[count];
            for (int i = 0; i < count; i++) {
                this.nodes[i] = new Node(i, count);
                this.nodes[i].durable = faults != Faults.EMPTY_RESTARTS && random.nextBoolean();
            }
            long[] maxTtls = { 2_000, 6_000, 3_000 };
            this.clients = new Client[3];
            for (int c = 0; c < 3; c++) {
                this.clients[c] = new Client(count, maxTtls[c]);
            }
        }

        void run() {
            for (int step = 0; step < STEPS && this.result.violations.size() < 20; step++) {
                int action = this.random.nextInt(100);
                if (action < 35) {
                    acquire(this.random.nextInt(this.clients.length));
                }
                else if (action < 50) {
                    refresh(this.random.nextInt(this.clients.length));
                }
                else if (action < 62) {
                    partition(this.random.nextInt(this.clients.length));
                }
                else if (action < 72) {
                    restart(this.random.nextInt(this.count));
                }
                else if (action < 76) {
                    newInstance(this.random.nextInt(this.clients.length));
                }
                else if (action < 78) {
                    failWrites(this.random.nextInt(this.clients.length));
                }
                else {
                    this.now += this.random.nextInt(1_500);
                }
                refreshesDue();
            }
        }

        /** Every client writes its records again every quarter of its quarantine, as RestartGuard's refresh does. */
        private void refreshesDue() {
            for (int c = 0; c < this.clients.length; c++) {
                Client client = this.clients[c];
                if (this.now - client.refreshedAt >= NodeRecords.refreshMillis(client.quarantine)) {
                    refresh(c);
                    client.refreshedAt = this.now;
                }
            }
        }

        /**
         * A client's process is replaced by a new one (a crash and restart, a new pod): it starts with no memory of any
         * node and its own reach; the leases of the process it replaces stay valid until they expire.
         */
        private void newInstance(int c) {
            Client client = this.clients[c];
            Arrays.fill(client.decided, null);
            Arrays.fill(client.votesFrom, 0);
            Arrays.fill(client.checked, false);
            Arrays.fill(client.recordedUntil, 0);
            client.writesFailUntil = 0;
            for (int i = 0; i < this.count; i++) {
                client.reach[i] = this.random.nextInt(10) < 7;
            }
            this.steps.add(this.now + " client " + c + " is a new instance reaching " + Arrays.toString(client.reach));
        }

        /** From now on, and for longer than its records live, every record write of client c fails; it still locks. */
        private void failWrites(int c) {
            Client client = this.clients[c];
            client.writesFailUntil = this.now + NodeRecords.keepMillis(client.quarantine) + this.random.nextInt(5_000);
            this.steps.add(this.now + " client " + c + " cannot write records until " + client.writesFailUntil);
        }

        private void partition(int c) {
            Client client = this.clients[c];
            for (int i = 0; i < this.count; i++) {
                boolean reach = this.random.nextInt(10) < 7;
                if (reach != client.reach[i]) {
                    client.reach[i] = reach;
                    client.checked[i] = false; // a connection that dropped or came back is checked again
                }
            }
            this.steps.add(this.now + " client " + c + " reaches " + Arrays.toString(client.reach));
        }

        private void restart(int x) {
            Node node = this.nodes[x];
            int kind = switch (this.faults) {
                case EMPTY_RESTARTS -> 0;
                case FAILOVERS -> 2 + this.random.nextInt(2);
                case ALL -> this.random.nextInt(4);
            };
            boolean losesMemory = kind == 0 || kind == 2 || !node.durable;
            if (losesMemory && this.assumption) {
                for (Node other : this.nodes) {
                    if (other != node && this.now - other.lostMemoryAt < lifetime()) {
                        return; // the rule's assumption: one memory loss per record lifetime
                    }
                }
            }
            if (losesMemory) {
                for (Node other : this.nodes) {
                    if (other != node && this.now - other.lostMemoryAt < lifetime()) {
                        this.steps.add("two memory losses within a record lifetime");
                    }
                }
            }
            switch (kind) {
                case 0 -> { // empty
                    node.newProcess(this.now);
                    wipe(node);
                    node.promoted = false;
                    node.lostMemoryAt = this.now;
                }
                case 1 -> { // with its data, if durable (else empty)
                    node.newProcess(this.now);
                    if (!node.durable) {
                        wipe(node);
                        node.lostMemoryAt = this.now;
                    }
                    node.promoted = false;
                }
                case 2 -> { // a failover: the replica has the records and the marker, not the latest key
                    node.newProcess(this.now - 3_600_000); // it ran as a replica for an hour
                    node.server++;
                    node.holder = -1;
                    node.promoted = true;
                    node.lostMemoryAt = this.now;
                }
                default -> { // the promoted replica restarts from its own log (or a plain restart with data)
                    node.newProcess(this.now);
                    if (!node.durable) {
                        wipe(node);
                        node.lostMemoryAt = this.now;
                    }
                    node.promoted = false;
                    node.durable = true;
                }
            }
            for (Client client : this.clients) {
                client.checked[x] = false;
            }
            this.steps.add(this.now + " node " + x + " restart kind " + kind + " as " + node.runId);
        }

        private long lifetime() {
            long quarantine = 0;
            for (Client client : this.clients) {
                quarantine = Math.max(quarantine, client.quarantine);
            }
            return NodeRecords.keepMillis(quarantine);
        }

        private static void wipe(Node node) {
            node.holder = -1;
            node.marker = null;
            node.records.forEach(List::clear);
        }

        private void acquire(int c) {
            Client client = this.clients[c];
            int votes = 0;
            List<Integer> set = new ArrayList<>();
            int id = this.leases.size();
            for (int x = 0; x < this.count; x++) {
                if (!client.reach[x]) {
                    continue;
                }
                if (!client.checked[x]) {
                    check(c, x);
                }
                boolean recorded = this.policy != Policy.RULE || this.now < client.recordedUntil[x];
                if (client.checked[x] && this.now >= client.votesFrom[x] && recorded) {
                    Node node = this.nodes[x];
                    if (node.holder < 0 || node.expiresAt <= this.now) {
                        node.holder = id;
                        node.expiresAt = this.now + client.maxTtl;
                        set.add(x);
                        votes++;
                    }
                }
            }
            if (votes < this.count / 2 + 1) {
                for (int x : set) {
                    this.nodes[x].holder = -1;
                }
                return;
            }
            Lease lease = new Lease(id, c, this.now, this.now + client.maxTtl, set.stream().map((x) -> this.nodes[x].runId).toList());
            for (Lease other : this.leases) {
                if (other.validUntil() > this.now) {
                    violation("lease " + id + " of client " + c + " through " + lease.through() + " while lease " + other.id() + " of client "
                            + other.client() + " through " + other.through() + " is valid until " + other.validUntil());
                }
            }
            this.leases.add(lease);
            this.result.grants++;
            this.steps.add(this.now + " client " + c + " granted " + id + " through " + lease.through());
        }

        private void violation(String what) {
            String text = "seed " + this.seed + " (" + this.count + " nodes, " + this.policy + "): " + what + "; steps " + this.steps;
            this.result.violations.add(text);
            if (this.result.first == null) {
                this.result.first = text;
            }
        }

        /** A check of node x by client c, as RestartGuard runs it, on the nodes c reaches. */
        private void check(int c, int x) {
            Client client = this.clients[c];
            Node node = this.nodes[x];
            ServerInfo info = info(node);
            String previous = client.decided[x];
            Verdict verdict;
            if (this.policy != Policy.FORMER_READS && node.runId.equals(previous) && !node.promoted) {
                verdict = (this.now >= client.votesFrom[x]) ? Verdict.VOTE : Verdict.waitFor("known", TimeUnit.MILLISECONDS.toNanos(client.votesFrom[x] - this.now));
            }
            else {
                verdict = (this.policy == Policy.FORMER_READS) ? judgeWithFormerReads(client, x, info, previous) : judge(client, x, info, previous);
            }
            this.steps.add(this.now + " client " + c + " checks " + node.runId + (node.durable ? " durable" : "") + " marker " + node.marker
                    + ": " + (!verdict.decided() ? "undecided" : (verdict.quarantine() == null) ? "votes" : "waits " + verdict.quarantine()));
            if (!verdict.decided()) {
                return;
            }
            boolean votes = verdict.quarantine() == null;
            int confirmed = recordConfirmed(client, x, node.runId);
            if (votes && this.policy != Policy.FORMER_READS && confirmed < QuarantinePolicy.recordsToConfirm(this.count)) {
                return;
            }
            client.decided[x] = node.runId;
            client.votesFrom[x] = this.now + TimeUnit.NANOSECONDS.toMillis(verdict.waitNanos()) + (votes ? 0 : 1);
            client.checked[x] = true;
            if (!votes) {
                this.result.quarantined++;
            }
            if (votes && node.durable) {
                node.marker = (this.policy == Policy.FORMER_MARKER) ? ((node.marker != null) ? node.marker : node.runId)
                        : QuarantinePolicy.markerOf(node.runId, "s" + node.server);
            }
        }

        private Verdict judge(Client client, int x, ServerInfo info, @Nullable String previous) {
            int trusted = 0;
            for (int j = 0; j < this.count; j++) {
                if (j != x && client.reach[j] && QuarantinePolicy.trustedReader(client.maxTtl, client.quarantine, info(this.nodes[j]),
                        client.decided[j], records(readRecordsOf(client, j)))) {
                    trusted++;
                }
            }
            String marker = this.nodes[x].marker;
            if (this.policy == Policy.FORMER_MARKER) {
                Verdict verdict = QuarantinePolicy.check(RestartQuarantine.AUTO, client.maxTtl, client.quarantine, info, previous,
                        records(readRecordsOf(client, x)), null, "", trusted, QuarantinePolicy.readersNeeded(this.count));
                boolean formerProof = info.durable() && !info.promoted() && marker != null && !marker.equals(info.runId());
                return (verdict.decided() && verdict.quarantine() != null && formerProof) ? Verdict.VOTE : verdict;
            }
            return QuarantinePolicy.check(RestartQuarantine.AUTO, client.maxTtl, client.quarantine, info, previous, records(readRecordsOf(client, x)),
                    marker, "s" + this.nodes[x].server, trusted, QuarantinePolicy.readersNeeded(this.count));
        }

        private Verdict judgeWithFormerReads(Client client, int x, ServerInfo info, @Nullable String previous) {
            int answers = 0;
            for (int j = 0; j < this.count; j++) {
                if (j != x && client.reach[j]) {
                    answers++;
                }
            }
            if (answers < this.count / 2) {
                return Verdict.undecided("too few");
            }
            return QuarantinePolicy.judge(RestartQuarantine.AUTO, client.maxTtl, client.quarantine, info, previous,
                    records(readRecordsOf(client, x)), this.nodes[x].marker, "s" + this.nodes[x].server);
        }

        /** The records of node j that client c reads: from every node it reaches but j. */
        private List<Record> readRecordsOf(Client client, int j) {
            List<Record> read = new ArrayList<>();
            for (int k = 0; k < this.count; k++) {
                if (k != j && client.reach[k]) {
                    read.addAll(this.nodes[k].records.get(j));
                }
            }
            return read;
        }

        private NodeRecords records(List<Record> read) {
            List<Object> replies = new ArrayList<>();
            for (Record record : read) {
                replies.add(List.of(record.runId() + ":" + record.maxTtl() + ":" + record.quarantine(), Long.toString(this.now - record.writtenAt())));
            }
            return NodeRecords.parse(replies, 0, 0);
        }

        /** Writes client c's record of node x's process on every other node it reaches; each write may fail. */
        private int record(Client client, int x, String runId) {
            int confirmed = 0;
            for (int j = 0; j < this.count; j++) {
                if (j != x && client.reach[j] && this.now >= client.writesFailUntil && this.random.nextInt(10) > 0) {
                    List<Record> held = this.nodes[j].records.get(x);
                    held.removeIf((record) -> record.runId().equals(runId) && record.maxTtl() == client.maxTtl);
                    held.add(new Record(runId, client.maxTtl, client.quarantine, this.now));
                    confirmed++;
                }
            }
            return confirmed;
        }

        private void refresh(int c) {
            Client client = this.clients[c];
            for (int x = 0; x < this.count; x++) {
                if (client.checked[x] && client.decided[x] != null) {
                    recordConfirmed(client, x, client.decided[x]);
                }
            }
        }

        /**
         * Writes client c's record of node x's process, and with enough confirmations lets x vote in c for two quarantines
         * less a max-ttl from now, as RestartGuard does.
         */
        private int recordConfirmed(Client client, int x, String runId) {
            int confirmed = record(client, x, runId);
            if (confirmed >= QuarantinePolicy.recordsToConfirm(this.count)) {
                client.recordedUntil[x] = Math.max(client.recordedUntil[x], this.now + 2 * client.quarantine - client.maxTtl);
            }
            return confirmed;
        }

        private ServerInfo info(Node node) {
            return new ServerInfo(node.runId, (this.now - node.startedAt) / 1_000, true, node.durable, node.promoted);
        }

    }

}
