package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;

/**
 * One client process of a chaos run: several threads lock a small set of keys (so that they contend with the
 * other processes) and, holding the lock, write to the {@link Storage}; every acquisition and write goes to this
 * process's history file. Started by {@link ChaosRun} as {@code java ChaosClient <client.properties> <index>}; it
 * stops when the run's stop file appears.
 * <p>
 * A holder does what careful code does: it checks that its lease is valid, computes the value to write (a few
 * ms to a few hundred), then writes it, passing its fencing token when it has one. A pause of the whole process
 * during the computation is the scenario of the Redlock critique: the lease expires, another client takes the
 * lock and writes, and the paused holder's write arrives after it.
 * <p>
 * Its Redlocks run with its own {@code maxTtl} ({@link ChaosSettings#maxTtlMillis(int)}), up to which it draws its
 * ttls: in a fleet, a process with a short one shares the nodes and the key prefixes with processes with a long one.
 * It locks on its own node list when the run gave it one ({@link ChaosSettings#nodes(int)}): the same nodes, some through
 * the run's proxies. When the run holds a leader election ({@link ChaosSettings#leader()}), one more thread runs for
 * leader ({@link LeaderCandidate}) on a Redlock of its own. Another writes which nodes the process counts every 100 ms
 * ({@link ClientVotes}), so that the run can wait for a restarted node's quarantine to be over for every client, and one
 * more starts the newcomers the run asks for ({@link Newcomer}): Redlocks built mid-run that lock for a while.
 */
public final class ChaosClient {

    /** The longest of the short holds. */
    private static final long SHORT_HOLD_MILLIS = 10;

    /** How many failed writes to the storage the process's log shows. */
    private static final int STORAGE_ERRORS_SHOWN = 20;

    private final ChaosSettings settings;

    private final int index;

    /** This process's {@code maxTtl}: its Redlocks' and the longest ttl it draws. */
    private final long maxTtlMillis;

    private final Redlock plain;

    /** The Redlock of the fenced locks, or null when the run takes none. */
    private final Redlock fenced;

    /** The candidate of the leader election, or null when the run holds none. */
    private final LeaderCandidate candidate;

    /** The candidate's own Redlock, or null when the run holds no leader election. */
    private final Redlock leaderLock;

    private final Storage storage;

    private final AtomicInteger storageErrors = new AtomicInteger();

    private final Writer history;

    private final ReentrantLock historyLock = new ReentrantLock();

    private ChaosClient(ChaosSettings settings, int index) throws IOException {
        this.settings = settings;
        this.index = index;
        this.maxTtlMillis = settings.maxTtlMillis(index);
        this.plain = Redlock.builder().nodes(settings.nodes(index)).maxTtl(Duration.ofMillis(this.maxTtlMillis))
                .restartQuarantine(settings.quarantine()).keyPrefix(History.Kind.EXCLUSIVE.keyPrefix()).build();
        // Only when the run takes fenced locks.
        this.fenced = settings.kinds().contains(History.Kind.FENCED) ? Redlock.builder().nodes(settings.nodes(index))
                .maxTtl(Duration.ofMillis(this.maxTtlMillis)).restartQuarantine(settings.quarantine()).fencing(settings.fencing())
                .keyPrefix(History.Kind.FENCED.keyPrefix()).build() : null;
        if (settings.leader()) {
            this.candidate = new LeaderCandidate(index, settings.threads(), this.maxTtlMillis, settings.directory().resolve("stop"),
                    this::append, new SplittableRandom(settings.seed() * 1_000_003L + index * 1_009L + settings.threads()));
            this.leaderLock = Redlock.builder().nodes(settings.nodes(index)).maxTtl(Duration.ofMillis(this.maxTtlMillis))
                    .restartQuarantine(settings.quarantine()).keyPrefix(History.Kind.EXCLUSIVE.keyPrefix()).observer(this.candidate.observer())
                    .build();
        }
        else {
            this.candidate = null;
            this.leaderLock = null;
        }
        this.storage = Storage.open(settings.storage(), settings.storageFence(), settings.storageConnections());
        this.history = Files.newBufferedWriter(settings.directory().resolve("history-" + index + ".tsv"), StandardCharsets.UTF_8);
    }

    /**
     * Runs one client process.
     * @param args the run's {@code client.properties} and this client's index
     * @throws Exception when the client cannot start; the run then fails
     */
    public static void main(String[] args) throws Exception {
        ChaosSettings settings = ChaosSettings.load(Path.of(args[0]));
        int index = Integer.parseInt(args[1]);
        ChaosClient client = new ChaosClient(settings, index);
        client.run();
        System.exit(0);
    }

    private void run() throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < this.settings.threads(); t++) {
            int thread = t;
            SplittableRandom random = new SplittableRandom(this.settings.seed() * 1_000_003L + this.index * 1_009L + thread);
            Thread worker = new Thread(() -> loop(thread, random), "chaos-" + this.index + "-" + t);
            worker.start();
            threads.add(worker);
        }
        Thread votes = new Thread(this::reportVotes, "chaos-" + this.index + "-votes");
        votes.start();
        threads.add(votes);
        Thread newcomers = new Thread(this::runNewcomers, "chaos-" + this.index + "-newcomers");
        newcomers.start();
        threads.add(newcomers);
        if (this.candidate != null) {
            Thread candidate = new Thread(() -> this.candidate.run(this.leaderLock), "chaos-" + this.index + "-leader");
            candidate.start();
            threads.add(candidate);
            this.candidate.awaitFirstAttempt(60_000); // so that the first leader is elected before the run's faults
        }
        Files.writeString(this.settings.directory().resolve("ready-" + this.index), "ready");
        for (Thread thread : threads) {
            thread.join();
        }
        this.plain.close();
        if (this.fenced != null) {
            this.fenced.close();
        }
        if (this.leaderLock != null) {
            this.leaderLock.close();
        }
        this.storage.close();
        this.historyLock.lock();
        try {
            this.history.close();
        }
        finally {
            this.historyLock.unlock();
        }
    }

    private void loop(int thread, SplittableRandom random) {
        Path stop = this.settings.directory().resolve("stop");
        History.Kind[] kinds = this.settings.kinds().toArray(History.Kind[]::new);
        while (!Files.exists(stop)) {
            History.Kind kind = kinds[random.nextInt(kinds.length)];
            try {
                once(this.plain, thread, kind, random);
            }
            catch (RuntimeException ex) {
                // Recorded by once(); a client goes on whatever a node does.
            }
        }
    }

    /**
     * Runs each newcomer the run asks this process for ({@link Newcomer}), one at a time, until the run stops: a Redlock
     * built then, as the process's own, whose threads take the exclusive locks for the newcomer's time, then closed.
     */
    private void runNewcomers() {
        Path stop = this.settings.directory().resolve("stop");
        int last = 0;
        while (!Files.exists(stop)) {
            Optional<Newcomer> next = Newcomer.next(this.settings.directory(), this.index, last);
            if (next.isPresent()) {
                last = next.get().sequence();
                runNewcomer(next.get(), stop);
            }
            else {
                sleepQuietly(20);
            }
        }
    }

    private void runNewcomer(Newcomer newcomer, Path stop) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(newcomer.millis());
        System.out.println("newcomer " + newcomer.sequence() + " starts, for " + newcomer.millis() + " ms");
        try (Redlock fresh = Redlock.builder().nodes(this.settings.nodes(this.index)).maxTtl(Duration.ofMillis(this.maxTtlMillis))
                .restartQuarantine(this.settings.quarantine()).keyPrefix(History.Kind.EXCLUSIVE.keyPrefix()).build()) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < this.settings.threads(); t++) {
                int thread = Newcomer.THREADS_PER_SEQUENCE * newcomer.sequence() + t;
                SplittableRandom random = new SplittableRandom(this.settings.seed() * 1_000_003L + this.index * 1_009L + thread);
                Thread worker = new Thread(() -> {
                    while (System.nanoTime() - end < 0 && !Files.exists(stop)) {
                        try {
                            once(fresh, thread, History.Kind.EXCLUSIVE, random);
                        }
                        catch (RuntimeException ex) {
                            // Recorded by once().
                        }
                    }
                }, "chaos-" + this.index + "-newcomer-" + thread);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        System.out.println("newcomer " + newcomer.sequence() + " ends");
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void once(Redlock plain, int thread, History.Kind kind, SplittableRandom random) {
        String lockKey = kind.lockKey(random.nextInt(this.settings.keys()));
        // An extended lease gets a short ttl, so that it is extended several times while held.
        long maxTtl = (kind == History.Kind.EXTENDED) ? Math.min(this.maxTtlMillis, 3 * this.settings.minTtlMillis())
                : this.maxTtlMillis;
        long ttlMillis = this.settings.minTtlMillis() + random.nextLong(maxTtl - this.settings.minTtlMillis() + 1);
        Duration ttl = Duration.ofMillis(ttlMillis);
        Duration wait = Duration.ofMillis(this.settings.waitMillis());
        long start = System.nanoTime();
        Optional<RedlockLease> acquired;
        try {
            acquired = switch (kind) {
                case EXCLUSIVE, EXTENDED -> plain.tryAcquire(lockKey, ttl, wait);
                case READ -> plain.tryAcquireRead(lockKey, ttl, wait);
                case WRITE -> plain.tryAcquireWrite(lockKey, ttl, wait);
                case FENCED -> this.fenced.tryAcquire(lockKey, ttl, wait);
            };
        }
        catch (RuntimeException ex) {
            record(new History.Operation(this.index, thread, lockKey, kind, start, System.nanoTime(), History.Outcome.ERROR, "-", -1,
                    0, 0));
            throw ex;
        }
        long granted = System.nanoTime();
        if (acquired.isEmpty()) {
            record(new History.Operation(this.index, thread, lockKey, kind, start, granted, History.Outcome.REFUSED, "-", -1, 0, 0));
            return;
        }
        RedlockLease lease = acquired.get();
        long[] validEnd = { validEnd(lease, granted) };
        long fencingToken = (kind == History.Kind.FENCED && this.settings.fencing()) ? lease.fencingToken() : -1;
        try {
            if (kind == History.Kind.EXTENDED) {
                lease.autoExtend(Duration.ofMillis(3 * ttlMillis));
            }
            long holdMillis = holdMillis(kind, ttlMillis, random);
            if (kind != History.Kind.READ && lease.isValid()) {
                compute(lease, holdMillis, validEnd);
                write(thread, lockKey, lease, fencingToken);
            }
            else {
                compute(lease, holdMillis, validEnd);
            }
        }
        finally {
            validEnd[0] = validEnd(lease, validEnd[0]);
            long release = System.nanoTime();
            try {
                lease.release();
            }
            finally {
                record(new History.Operation(this.index, thread, lockKey, kind, start, granted, History.Outcome.GRANTED, lease.token(),
                        fencingToken, validEnd[0], release));
            }
        }
    }

    /**
     * How long a holder keeps the lock: mostly a few ms (so that a run makes many operations), and in a share
     * of the operations ({@link ChaosSettings#longHolds()}) half to nine tenths of the ttl, which lets a fault
     * land while the lock is held; an extended lease up to twice its ttl, so that it is extended.
     */
    private long holdMillis(History.Kind kind, long ttlMillis, SplittableRandom random) {
        if (kind == History.Kind.EXTENDED) {
            return random.nextLong(1 + 2 * ttlMillis);
        }
        if (random.nextDouble() < this.settings.longHolds()) {
            return ttlMillis / 2 + random.nextLong(1 + ttlMillis * 4 / 10);
        }
        return random.nextLong(1 + Math.min(SHORT_HOLD_MILLIS, ttlMillis / 2));
    }

    /** Works for {@code millis}, noting the lease's end of validity as it moves (an extended lease's does). */
    private static void compute(RedlockLease lease, long millis, long[] validEnd) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Math.max(1, Math.min(20, TimeUnit.NANOSECONDS.toMillis(left))));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            validEnd[0] = validEnd(lease, validEnd[0]);
        }
    }

    /**
     * Writes which nodes this process counts ({@link ClientVotes}) every {@link ClientVotes#INTERVAL_MILLIS} ms until the run
     * stops: a node counts where every Redlock of the process counts it.
     */
    private void reportVotes() {
        Path stop = this.settings.directory().resolve("stop");
        List<Redlock> redlocks = new ArrayList<>(List.of(this.plain));
        Optional.ofNullable(this.fenced).ifPresent(redlocks::add);
        Optional.ofNullable(this.leaderLock).ifPresent(redlocks::add);
        while (!Files.exists(stop)) {
            try {
                ClientVotes.write(this.settings.directory(), this.index, ClientVotes.combined(redlocks.stream()
                        .map((redlock) -> redlock.nodeStatuses().values().stream().map(NodeStatus::state).toList()).toList()));
            }
            catch (RuntimeException ex) {
                // The next line says it; a client goes on.
            }
            try {
                Thread.sleep(ClientVotes.INTERVAL_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The later of {@code known} and the end of validity the lease gives now (read before, so never later than the truth). */
    static long validEnd(RedlockLease lease, long known) {
        long now = System.nanoTime();
        long remaining = lease.remainingValidity().toNanos();
        return (remaining > 0) ? Math.max(known, now + remaining) : known;
    }

    private void write(int thread, String lockKey, RedlockLease lease, long fencingToken) {
        long sent = System.nanoTime();
        Storage.Outcome outcome;
        try {
            outcome = this.storage.write(lockKey, lease.token(), fencingToken);
        }
        catch (RuntimeException ex) {
            if (this.storageErrors.incrementAndGet() <= STORAGE_ERRORS_SHOWN) { // the storage's log says what landed
                System.out.println("write to the storage failed: " + ex);
            }
            throw ex;
        }
        record(new History.Write(this.index, thread, lockKey, lease.token(), fencingToken, sent, System.nanoTime(), outcome.seq(),
                outcome.accepted()));
    }

    private void record(History.Operation operation) {
        append(operation.line());
    }

    private void record(History.Write write) {
        append(write.line());
    }

    private void append(String line) {
        this.historyLock.lock();
        try {
            this.history.write(line);
            this.history.write('\n');
            this.history.flush(); // a process paused or killed mid-run keeps what it recorded
        }
        catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
        finally {
            this.historyLock.unlock();
        }
    }

}
