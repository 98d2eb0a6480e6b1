package io.github.redlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;

/**
 * One client process's candidate of the run's leader election ({@link ChaosSettings#leader()}): it asks for the leader
 * lock ({@link History#LEADER_KEY}) until it is granted, then holds it with a lease extended automatically for the rest of
 * the run, as a leader does, and asks again once it lost it; while another process leads, it asks every 100 to 200 ms, as
 * a second candidate would. It records in its process's history when it gains and loses leadership
 * ({@link History.Lead}), each extension and repair of its lease that its Redlock reports, and each term as an exclusive
 * grant of the leader lock ({@link History.Operation}), so that two leaders at once are an overlap like any other.
 * <p>
 * It runs on a Redlock of its own, built with {@link #observer()}, so that what that Redlock reports is this candidate's
 * lease. Its first attempt waits until that Redlock counts every node, and a moment longer the higher its process's index:
 * the first leader is then granted every node, as a lease must be to outlive a restart of each in turn (a lease that a
 * rival's attempt left with a bare majority loses it at the first restart of one of its nodes, repairs or not: only a node
 * that held the lease is repaired).
 * <p>
 * Thread-safety: {@link #run} runs on one thread; the observer's methods, called on the Redlock's I/O threads, only queue
 * events, which that thread writes.
 */
final class LeaderCandidate {

    /** How often a leader looks at its lease: the end of validity in its history may be that much behind. */
    private static final long WATCH_MILLIS = 20;

    /** How long after its acquisition a leader's lease is extended: longer than any run. */
    private static final Duration TERM = Duration.ofHours(12);

    /** How long the first attempt waits at most for the Redlock to count every node. */
    private static final long EVERY_NODE_MILLIS = 30_000;

    /** How much later than the process before it a process makes its first attempt. */
    private static final long STAGGER_MILLIS = 300;

    private final int client;

    /** The candidate's thread number in its process's history: after the worker threads'. */
    private final int thread;

    private final Duration ttl;

    private final Path stop;

    private final Consumer<String> history;

    private final SplittableRandom random;

    private final Queue<History.Lead> events = new ConcurrentLinkedQueue<>();

    private final CountDownLatch firstAttempt = new CountDownLatch(1);

    /** The token of the term under way, {@code -} between terms: the token the observer's events carry. */
    private volatile String term = "-";

    private final RedlockObserver observer = new RedlockObserver() {

        @Override
        public void extended(boolean extended, long nanos) {
            queue(extended ? History.LeadEvent.EXTENDED : History.LeadEvent.NOT_EXTENDED, "");
        }

        @Override
        public void nodeCommand(String node, String command, String outcome, long nanos) {
            if ("repair".equals(command)) {
                queue(History.LeadEvent.REPAIR, node + " " + outcome);
            }
        }

    };

    /**
     * @param client the process's index
     * @param thread the candidate's thread number in the history
     * @param ttlMillis the ttl of its lease: its process's {@code maxTtl}
     * @param stop the run's stop file
     * @param history where its process appends history lines
     */
    LeaderCandidate(int client, int thread, long ttlMillis, Path stop, Consumer<String> history, SplittableRandom random) {
        this.client = client;
        this.thread = thread;
        this.ttl = Duration.ofMillis(ttlMillis);
        this.stop = stop;
        this.history = history;
        this.random = random;
    }

    /** What the candidate's Redlock must report to: its extensions and the repairs of its lease. */
    RedlockObserver observer() {
        return this.observer;
    }

    /** Waits until the candidate made its first attempt (or stopped), at most {@code millis}. */
    void awaitFirstAttempt(long millis) throws InterruptedException {
        this.firstAttempt.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Runs for leadership on {@code lock} until the run's stop file appears. */
    void run(Redlock lock) {
        long attempts = 0;
        try {
            awaitEveryNode(lock);
            pause(STAGGER_MILLIS * this.client);
            while (!stopped()) {
                attempts++;
                long start = System.nanoTime();
                Optional<RedlockLease> acquired;
                try {
                    acquired = lock.tryAcquire(History.LEADER_KEY, this.ttl);
                }
                catch (RuntimeException ex) {
                    acquired = Optional.empty(); // a candidate goes on whatever a node does
                }
                this.firstAttempt.countDown();
                if (acquired.isPresent()) {
                    lead(acquired.get(), start, System.nanoTime());
                }
                else {
                    pause(100 + this.random.nextInt(101));
                }
            }
        }
        finally {
            this.firstAttempt.countDown();
            drain();
            this.history.accept(new History.Lead(this.client, History.LeadEvent.ATTEMPTS, System.nanoTime(), "-", Long.toString(attempts))
                    .line());
        }
    }

    /**
     * Leads until the lease is lost or the run stops, then lets go of it (what is left of a lost lease too, as a leader
     * that steps down does), and records the term.
     */
    private void lead(RedlockLease lease, long start, long granted) {
        this.term = lease.token();
        record(History.LeadEvent.GAINED, granted, lease.token(), "");
        long[] validEnd = { ChaosClient.validEnd(lease, granted) };
        CompletableFuture<Void> lost = lease.lost();
        try {
            lease.autoExtend(TERM);
            while (!lost.isDone() && !stopped()) {
                pause(WATCH_MILLIS);
                validEnd[0] = ChaosClient.validEnd(lease, validEnd[0]);
                drain();
            }
        }
        finally {
            validEnd[0] = ChaosClient.validEnd(lease, validEnd[0]);
            long release = System.nanoTime();
            Optional<String> reason = lease.lostReason();
            try {
                lease.release();
            }
            catch (RuntimeException ex) {
                // Its keys expire with their ttl.
            }
            drain();
            this.term = "-";
            this.history.accept(new History.Operation(this.client, this.thread, History.LEADER_KEY, History.Kind.EXCLUSIVE, start, granted,
                    History.Outcome.GRANTED, lease.token(), -1, validEnd[0], release).line());
            record(reason.isPresent() ? History.LeadEvent.LOST : History.LeadEvent.RESIGNED, release, lease.token(), reason.orElse(""));
        }
    }

    private void awaitEveryNode(Redlock lock) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EVERY_NODE_MILLIS);
        while (!stopped() && System.nanoTime() - deadline < 0
                && !lock.nodeStatuses().values().stream().allMatch((status) -> status.state() == NodeStatus.State.UP)) {
            pause(50);
        }
    }

    private void queue(History.LeadEvent event, String detail) {
        this.events.add(new History.Lead(this.client, event, System.nanoTime(), this.term, detail));
    }

    /** Writes the events the observer queued. */
    private void drain() {
        History.Lead event;
        while ((event = this.events.poll()) != null) {
            this.history.accept(event.line());
        }
    }

    private void record(History.LeadEvent event, long nanos, String token, String detail) {
        drain();
        this.history.accept(new History.Lead(this.client, event, nanos, token, detail.replaceAll("[\t\n\r]", " ")).line());
    }

    private boolean stopped() {
        return Files.exists(this.stop);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

}
