package io.github.redlock.core;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.redlock.test.Poll;

final class TestSupport {

    /** Whether the long soak and fault variants run ({@code -Predlock-soak}). */
    static final boolean SOAK = Boolean.getBoolean("redlock.soak");

    private TestSupport() {
    }

    /** Polls a condition until it holds, failing after {@code timeout}. */
    static void awaitTrue(Duration timeout, BooleanSupplier condition) {
        Poll.until(timeout, condition, () -> "Condition not met within " + timeout);
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * A builder whose nodes may take two seconds to answer: for tests about anything but node timeouts, so that
     * a loaded machine's slow answers (the default is 50 ms) are not taken for failed nodes.
     */
    static Redlock.Builder patientBuilder() {
        return Redlock.builder().nodeTimeout(Duration.ofSeconds(2));
    }

    /**
     * Makes {@code threads} threads take a fenced lock on {@code key} {@code times} times each, waiting for it, and
     * returns the tokens in the order they were granted (each appended while its lease is held).
     */
    static List<Long> tokensInGrantOrder(Redlock fenced, String key, int threads, int times) throws InterruptedException {
        List<Long> granted = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            pool.execute(() -> {
                try {
                    for (int i = 0; i < times; i++) {
                        try (RedlockLease lease = fenced.acquire(key, Duration.ofSeconds(5), Duration.ofSeconds(20))) {
                            synchronized (granted) {
                                granted.add(lease.fencingToken());
                            }
                        }
                    }
                }
                finally {
                    done.countDown();
                }
            });
        }
        boolean finished = done.await(120, TimeUnit.SECONDS);
        pool.shutdownNow();
        if (!finished) {
            throw new AssertionError("the threads did not finish within 120 s");
        }
        synchronized (granted) {
            return List.copyOf(granted);
        }
    }

    /** The first executable named {@code name} on the {@code PATH}, if any. */
    static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (!directory.isEmpty() && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

}
