package io.github.redlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The read-write lock on five real nodes: shared readers, exclusive writers, expiry, foreign state, and a
 * writer that a stream of readers cannot starve.
 */
class RedlockReadWriteIntegrationTests {

    private static final String WRITER = "redlock:doc\u00FFwriter";

    private static final String READERS = "redlock:doc\u00FFreaders";

    private static final String QUEUE = "redlock:doc\u00FFqueued-writers";

    private static final String QUEUED_READERS = "redlock:doc\u00FFqueued-readers";

    private static final String QUEUE_EXPIRY = "redlock:doc\u00FFqueue-expiry";

    private static final Duration TTL = Duration.ofSeconds(10);

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis, RedlockReadWriteIntegrationTests::quickToRetry);

    @RegisterExtension
    final RedisClientExtension<Redlock> other = RedisClientExtension.of(redis, RedlockReadWriteIntegrationTests::quickToRetry);

    @RegisterExtension
    final RedisClientExtension<NodeInspector> nodes = RedisClientExtension.of(redis, NodeInspector::new);

    @Test
    void manyReadersHoldTheLockAtOnce() {
        List<RedlockLease> readers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Redlock client = (i % 2 == 0) ? this.redlock.get() : this.other.get();
            readers.add(client.tryAcquireRead("doc", TTL).orElseThrow());
        }
        List<String> tokens = readers.stream().map(RedlockLease::token).sorted().toList();
        awaitTrue(Duration.ofSeconds(5), () -> IntStream.range(0, 5)
                .allMatch((node) -> this.nodes.get().members(node, READERS).stream().sorted().toList().equals(tokens)));
        assertThat(readers).allMatch(RedlockLease::isValid);
        assertThat(this.nodes.get().exists(WRITER)).containsOnly(false);
        readers.forEach((reader) -> assertThat(reader.release()).isTrue());
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(READERS).stream().noneMatch(Boolean::booleanValue));
    }

    @Test
    void readersKeepAWriterOutUntilTheLastOneLeaves() {
        RedlockLease first = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        RedlockLease second = this.other.get().tryAcquireRead("doc", TTL).orElseThrow();
        assertThat(this.other.get().tryAcquireWrite("doc", TTL)).isEmpty();
        assertThat(first.release()).isTrue();
        assertThat(this.other.get().tryAcquireWrite("doc", TTL)).isEmpty();
        assertThat(second.release()).isTrue();
        RedlockLease writer = this.other.get().tryAcquireWrite("doc", TTL, Duration.ofSeconds(2)).orElseThrow();
        // A quorum, not every node: on a loaded machine a node that answered too slowly gets the release later and
        // the writer's attempt not at all (commands are not queued for a node that stopped answering).
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().values(WRITER).stream().filter(writer.token()::equals).count() >= 3);
        assertThat(writer.release()).isTrue();
        this.nodes.get().awaitAbsent(WRITER);
    }

    @Test
    void aWriterExcludesEveryOtherHolder() {
        RedlockLease writer = this.redlock.get().acquireWrite("doc", TTL, Duration.ZERO);
        assertThat(this.other.get().tryAcquireRead("doc", TTL)).isEmpty();
        assertThat(this.other.get().tryAcquireWrite("doc", TTL)).isEmpty();
        assertThatExceptionOfType(RedlockAcquisitionException.class)
                .isThrownBy(() -> this.other.get().acquireRead("doc", TTL, Duration.ofMillis(100)))
                .withMessageContaining("'doc'");
        assertThat(this.nodes.get().exists(READERS)).containsOnly(false);
        assertThat(writer.release()).isTrue();
        assertThat(this.other.get().tryAcquireRead("doc", TTL, Duration.ofSeconds(2))).isPresent();
    }

    @Test
    void theReadWriteLockIsSeparateFromTheExclusiveLockOfTheSameKey() {
        RedlockLease exclusive = this.redlock.get().acquire("doc", TTL, Duration.ZERO);
        RedlockLease writer = this.other.get().acquireWrite("doc", TTL, Duration.ZERO);
        this.nodes.get().awaitOnAll("redlock:doc", exclusive.token());
        this.nodes.get().awaitOnAll(WRITER, writer.token());
        assertThat(writer.release()).isTrue();
        assertThat(exclusive.release()).isTrue();
    }

    @Test
    void readLeasesExpireByThemselves() {
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", Duration.ofMillis(300)).orElseThrow();
        assertThat(this.other.get().tryAcquireWrite("doc", TTL)).isEmpty();
        awaitTrue(Duration.ofSeconds(5), () -> !reader.isValid());
        assertThat(this.other.get().tryAcquireWrite("doc", Duration.ofMillis(300), Duration.ofSeconds(2))).isPresent();
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().members(0, READERS).isEmpty()); // purged, not waited for
        assertThat(reader.release()).isFalse();
    }

    @Test
    void writeLeasesExpireByThemselves() {
        RedlockLease writer = this.other.get().tryAcquireWrite("doc", Duration.ofMillis(300), Duration.ofSeconds(2)).orElseThrow();
        awaitTrue(Duration.ofSeconds(5), () -> !writer.isValid());
        assertThat(this.redlock.get().tryAcquireRead("doc", TTL, Duration.ofSeconds(2))).isPresent();
        assertThat(writer.release()).isFalse();
    }

    @Test
    void extendRenewsAReader() {
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", Duration.ofMillis(400)).orElseThrow();
        assertThat(reader.extend(Duration.ofSeconds(20))).isTrue();
        assertThat(reader.remainingValidity()).isGreaterThan(Duration.ofSeconds(15));
        assertThat(this.nodes.get().pttl(2, READERS)).isGreaterThan(15_000L);
        assertThat(reader.release()).isTrue();
        assertThat(reader.extend(Duration.ofSeconds(20))).isFalse();
    }

    @Test
    void extendRenewsAWriter() {
        RedlockLease writer = this.redlock.get().tryAcquireWrite("doc", Duration.ofMillis(400)).orElseThrow();
        assertThat(writer.extend(Duration.ofSeconds(20))).isTrue();
        assertThat(this.nodes.get().pttl(3, WRITER)).isGreaterThan(15_000L);
        assertThat(writer.release()).isTrue();
    }

    @Test
    void anAsyncReaderExcludesAnAsyncWriter() throws Exception {
        Optional<RedlockLease> reader = this.redlock.get().tryAcquireReadAsync("doc", TTL, Duration.ZERO).get(5, TimeUnit.SECONDS);
        assertThat(reader).isPresent();
        assertThat(this.other.get().tryAcquireWriteAsync("doc", TTL, Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void anAsyncReleaseLetsAWaitingAsyncWriterIn() throws Exception {
        RedlockLease reader = this.redlock.get().tryAcquireReadAsync("doc", TTL, Duration.ZERO).get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(reader.releaseAsync().get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(this.other.get().tryAcquireWriteAsync("doc", TTL, Duration.ofSeconds(2)).get(5, TimeUnit.SECONDS)).isPresent();
    }

    @Test
    void foreignWriterOnAMinorityDoesNotStopReaders() {
        this.nodes.get().set(0, WRITER, "foreign", Duration.ofSeconds(60));
        this.nodes.get().set(4, WRITER, "foreign", Duration.ofSeconds(60));
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        assertThat(this.nodes.get().members(0, READERS)).isEmpty();
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().members(2, READERS).equals(List.of(reader.token())));
        assertThat(reader.release()).isTrue();
    }

    @Test
    void foreignWriterOnAMinorityStaysUntouched() {
        this.nodes.get().set(0, WRITER, "foreign", Duration.ofSeconds(60));
        this.nodes.get().set(4, WRITER, "foreign", Duration.ofSeconds(60));
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        reader.release();
        assertThat(this.nodes.get().values(WRITER)).containsExactly("foreign", null, null, null, "foreign");
    }

    @Test
    void foreignWriterOnAMajorityStopsReaders() {
        for (int node : new int[] { 1, 2, 3 }) {
            this.nodes.get().set(node, WRITER, "foreign", Duration.ofSeconds(60));
        }
        assertThat(this.redlock.get().tryAcquireRead("doc", TTL)).isEmpty();
        assertThat(this.nodes.get().values(WRITER)).containsExactly(null, "foreign", "foreign", "foreign", null);
    }

    @Test
    void aReaderStoppedByAForeignWriterOnAMajorityLeavesNoReaderBehind() {
        for (int node : new int[] { 1, 2, 3 }) {
            this.nodes.get().set(node, WRITER, "foreign", Duration.ofSeconds(60));
        }
        this.redlock.get().tryAcquireRead("doc", TTL);
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(READERS).stream().noneMatch(Boolean::booleanValue));
    }

    @Test
    void foreignReadersOnAMajorityStopAWriter() {
        for (int node : new int[] { 0, 2, 4 }) {
            this.nodes.get().addReader(node, READERS, "foreign", Duration.ofSeconds(60));
        }
        assertThat(this.redlock.get().tryAcquireWrite("doc", TTL, Duration.ofMillis(200))).isEmpty();
        assertThat(this.nodes.get().members(2, READERS)).containsExactly("foreign");
    }

    @Test
    void aWriterStoppedByForeignReadersOnAMajorityLeavesNothingBehind() {
        for (int node : new int[] { 0, 2, 4 }) {
            this.nodes.get().addReader(node, READERS, "foreign", Duration.ofSeconds(60));
        }
        this.redlock.get().tryAcquireWrite("doc", TTL, Duration.ofMillis(200));
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(WRITER).stream().noneMatch(Boolean::booleanValue)
                && this.nodes.get().exists(QUEUE).stream().noneMatch(Boolean::booleanValue)
                && this.nodes.get().exists(QUEUE_EXPIRY).stream().noneMatch(Boolean::booleanValue));
        // The writer gave up and left the queue, so readers are welcome again at once.
        assertThat(this.other.get().tryAcquireRead("doc", TTL)).isPresent();
    }

    @Test
    void aWaitingWriterKeepsNewReadersOutUntilItHasHadItsTurn() throws Exception {
        RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL).orElseThrow();
        Future<Optional<RedlockLease>> writer = this.other.get().tryAcquireWriteAsync("doc", TTL, Duration.ofSeconds(10));
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(QUEUE).stream().filter(Boolean::booleanValue).count() >= 3);
        assertThat(this.redlock.get().tryAcquireRead("doc", TTL)).isEmpty(); // queued behind the writer
        assertThat(writer.isDone()).isFalse();
        reader.release();
        RedlockLease written = writer.get(5, TimeUnit.SECONDS).orElseThrow();
        // Left the queue as it took the lock (the last nodes may answer a moment after the quorum).
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(QUEUE).stream().noneMatch(Boolean::booleanValue));
        written.release();
        // The refused reader gave up and left the queue too: drained, the lock is unfair again.
        awaitTrue(Duration.ofSeconds(5), () -> this.nodes.get().exists(QUEUED_READERS).stream().noneMatch(Boolean::booleanValue)
                && this.nodes.get().exists(QUEUE_EXPIRY).stream().noneMatch(Boolean::booleanValue));
        assertThat(this.redlock.get().tryAcquireRead("doc", TTL)).isPresent();
    }

    @Test
    void aReaderIsNotStarvedByTwoThreadsOfBackToBackWriters() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        try {
            for (int i = 0; i < 2; i++) {
                Redlock client = (i == 0) ? this.redlock.get() : this.other.get();
                pool.submit(() -> {
                    while (!stop.get()) {
                        client.tryAcquireWrite("doc", TTL, Duration.ofSeconds(1)).ifPresent((lease) -> {
                            writes.incrementAndGet();
                            sleep(20);
                            lease.release();
                        });
                    }
                    return null;
                });
            }
            awaitTrue(Duration.ofSeconds(10), () -> writes.get() >= 4);
            List<Long> waits = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                int writesBefore = writes.get();
                long start = System.nanoTime();
                RedlockLease reader = this.redlock.get().tryAcquireRead("doc", TTL, Duration.ofSeconds(10)).orElse(null);
                long waited = TestSupport.millisSince(start);
                assertThat(reader).as("reader starved for %d ms in round %d", waited, round).isNotNull();
                waits.add(waited);
                reader.release();
                awaitTrue(Duration.ofSeconds(10), () -> writes.get() > writesBefore + 2); // writers are back in between
            }
            System.out.printf("Reader wait under 2 writer threads (ms): %s, writes %d%n", waits, writes.get());
        }
        finally {
            stop.set(true);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void readersNeverSeeAHalfWrittenValue() throws Exception {
        AtomicLong first = new AtomicLong();
        AtomicLong second = new AtomicLong();
        AtomicInteger torn = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger besideReaders = new AtomicInteger();
        long runNanos = TimeUnit.SECONDS.toNanos(TestSupport.SOAK ? 30 : 3);
        long end = System.nanoTime() + runNanos;
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                boolean writer = i < 2;
                Redlock client = (i % 2 == 0) ? this.redlock.get() : this.other.get();
                workers.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        if (writer) {
                            Optional<RedlockLease> lease = client.tryAcquireWrite("doc", TTL, Duration.ofSeconds(2));
                            if (lease.isEmpty()) {
                                continue;
                            }
                            if (writersInside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            if (readersInside.get() > 0) {
                                besideReaders.incrementAndGet(); // a writer let in while readers hold the lock
                            }
                            long value = first.get() + 1;
                            first.set(value);
                            sleep(2); // the torn moment a reader must never see
                            second.set(value);
                            writersInside.decrementAndGet();
                            writes.incrementAndGet();
                            lease.get().release();
                        }
                        else {
                            Optional<RedlockLease> lease = client.tryAcquireRead("doc", TTL, Duration.ofSeconds(2));
                            if (lease.isEmpty()) {
                                continue;
                            }
                            readersInside.incrementAndGet();
                            if (writersInside.get() > 0 || first.get() != second.get()) {
                                torn.incrementAndGet();
                            }
                            sleep(1);
                            readersInside.decrementAndGet();
                            reads.incrementAndGet();
                            lease.get().release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(runNanos + TimeUnit.SECONDS.toNanos(60), TimeUnit.NANOSECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        System.out.printf("Mixed readers and writers for %d s: %d reads, %d writes, %d torn reads, %d writer overlaps, %d writers "
                + "beside readers%n", TimeUnit.NANOSECONDS.toSeconds(runNanos), reads.get(), writes.get(), torn.get(), overlaps.get(),
                besideReaders.get());
        assertThat(torn.get()).isZero();
        assertThat(overlaps.get()).isZero();
        assertThat(besideReaders.get()).as("writers that found a reader inside").isZero();
        assertThat(writes.get()).isPositive();
        assertThat(reads.get()).isPositive();
        assertThat(first.get()).isEqualTo(writes.get());
    }

    @Test
    void aWriterIsNotStarvedByEightThreadsOfBackToBackReaders() throws Exception {
        int rounds = TestSupport.SOAK ? 20 : 3;
        List<Long> waits = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        CountDownLatch readersRunning = new CountDownLatch(8);
        try {
            for (int i = 0; i < 8; i++) {
                Redlock client = (i % 2 == 0) ? this.redlock.get() : this.other.get();
                pool.submit(() -> {
                    boolean counted = false;
                    while (!stop.get()) {
                        Optional<RedlockLease> lease = client.tryAcquireRead("doc", TTL, Duration.ofSeconds(1));
                        if (lease.isPresent()) {
                            if (!counted) {
                                readersRunning.countDown();
                                counted = true;
                            }
                            reads.incrementAndGet();
                            sleep(20);
                            lease.get().release();
                        }
                    }
                    return null;
                });
            }
            assertThat(readersRunning.await(20, TimeUnit.SECONDS)).isTrue();
            for (int round = 0; round < rounds; round++) {
                int readsBefore = reads.get();
                long start = System.nanoTime();
                RedlockLease writer = this.other.get().tryAcquireWrite("doc", TTL, Duration.ofSeconds(10)).orElse(null);
                long waited = TestSupport.millisSince(start);
                assertThat(writer).as("writer starved for %d ms in round %d", waited, round).isNotNull();
                waits.add(waited);
                sleep(5);
                writer.release();
                awaitTrue(Duration.ofSeconds(10), () -> reads.get() > readsBefore + 8); // readers are back in between
            }
        }
        finally {
            stop.set(true);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        Collections.sort(waits);
        System.out.printf("Writer wait under 8 reader threads (ms) over %d rounds: p50 %d, max %d, reads %d%n", rounds,
                waits.get(waits.size() / 2), waits.get(waits.size() - 1), reads.get());
    }

    /**
     * A client that retries every 20 ms, so that contended acquisitions settle quickly. Its node timeout of
     * 250 ms (five times the default, for a loaded machine) also sets how long a queue entry that nobody
     * refreshes lives (3 retry delays + 4 node timeouts: about 1 s), which the tests of drained queues wait out.
     */
    private static Redlock quickToRetry(List<String> uris) {
        return Redlock.builder().nodes(uris).nodeTimeout(Duration.ofMillis(250)).retryDelay(Duration.ofMillis(20)).build();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

}
