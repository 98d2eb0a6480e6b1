package io.github.redlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.Redlocked;
import io.github.redlock.core.Redlock;
import io.github.redlock.event.RedlockLeaseLostEvent;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The program that {@link RedlockVirtualThreadsIntegrationTests} runs on a Java 21 or later JVM (this tree compiles for 17, so
 * it reaches virtual threads by reflection): an application with {@code spring.threads.virtual.enabled=true} whose
 * annotated method {@code threads} virtual threads call at once on a few keys, waiting for each other, while Java
 * Flight Recorder records every {@code jdk.VirtualThreadPinned} event (any duration). Then one lease runs out, and
 * the thread that publishes its {@link RedlockLeaseLostEvent} is checked. With {@code control}, one virtual thread
 * also sleeps in a class initializer, which pins it on every JDK: the recording must show it. Prints
 * {@code RESULT name=value} lines.
 * <p>
 * Arguments: the nodes (comma-separated), the number of virtual threads, and optionally {@code control}.
 */
public final class VirtualThreadsRun {

    static final int KEYS = 16;

    /** The event of a virtual thread that parked while pinned to its carrier. */
    static final String PINNED = "jdk.VirtualThreadPinned";

    /** The keys of the warm-up calls, which are not counted. */
    static final String WARM_UP = "warm-up";

    private VirtualThreadsRun() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        boolean control = args.length > 2 && args[2].equals("control");
        Path recorded = Files.createTempFile("redlock-pinned", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
                try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                        .web(WebApplicationType.NONE)
                        .properties("redlock.nodes=" + args[0], "spring.threads.virtual.enabled=true", "spring.main.banner-mode=off",
                                "logging.level.root=warn")
                        .run()) {
                    Counters counters = context.getBean(Counters.class);
                    warmUp(counters);
                    // Virtual threads too: the first ones initialize the JDK's own classes for them, and a virtual
                    // thread that waits for a class's initialization by another is pinned.
                    contend(counters, context.getBean(Tally.class), Math.min(threads, 500), WARM_UP + "-", false);
                    recording.start();
                    contend(counters, context.getBean(Tally.class), threads, "k", true);
                    if (control) {
                        pinInAClassInitializer();
                    }
                    recording.stop();
                    loseALease(context);
                }
                recording.dump(recorded);
            }
            // Only the pinning events: the recording also holds those other libraries emit, e.g. Lettuce's connection events.
            List<RecordedEvent> pinned = RecordingFile.readAllEvents(recorded).stream()
                    .filter((event) -> event.getEventType().getName().equals(PINNED)).toList();
            for (RecordedEvent event : pinned) {
                System.out.println("PINNED " + event.getDuration() + " " + topFrames(event));
            }
            result("pinned", pinned.size());
        }
        finally {
            Files.deleteIfExists(recorded);
        }
        System.exit(0);
    }

    /** Loads the classes of the annotated call, its waiting and its handoff first: a class initialized under contention pins its waiters. */
    private static void warmUp(Counters counters) throws Exception {
        ExecutorService platform = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                calls.add(platform.submit(() -> counters.work(WARM_UP)));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            platform.shutdownNow();
        }
    }

    private static void contend(Counters counters, Tally tally, int threads, String keyPrefix, boolean report) throws Exception {
        long started = System.nanoTime();
        AtomicInteger failed = new AtomicInteger();
        ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
            List<Future<?>> calls = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                String key = keyPrefix + (i % KEYS);
                calls.add(virtual.submit(() -> {
                    try {
                        counters.work(key);
                    }
                    catch (RuntimeException ex) {
                        if (failed.getAndIncrement() == 0) {
                            ex.printStackTrace(System.out);
                        }
                    }
                }));
            }
            for (Future<?> call : calls) {
                call.get(5, TimeUnit.MINUTES);
            }
        }
        finally {
            virtual.shutdownNow();
        }
        if (!report) {
            return;
        }
        result("completed", tally.completed.get());
        result("failed", failed.get());
        result("maxOverlap", tally.maxOverlap.get());
        result("allVirtual", tally.onPlatformThreads.get() == 0);
        result("seconds", (System.nanoTime() - started) / 1_000_000_000.0);
    }

    private static void pinInAClassInitializer() throws Exception {
        Thread thread = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, (Runnable) SlowlyInitialized::touch);
        thread.join(10_000);
    }

    private static void loseALease(ConfigurableApplicationContext context) throws Exception {
        Lost lost = context.getBean(Lost.class);
        context.getBean(Redlock.class).acquire("lost", Duration.ofMillis(300), Duration.ZERO).lost(); // arms the loss at its validity's end
        result("lostEventPublished", lost.published.await(30, TimeUnit.SECONDS));
        result("lostEventOnVirtualThread", lost.onVirtualThread);
    }

    private static String topFrames(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return event.toString();
        }
        StringBuilder frames = new StringBuilder();
        for (RecordedFrame frame : event.getStackTrace().getFrames().subList(0, Math.min(12, event.getStackTrace().getFrames().size()))) {
            frames.append("\n    at ").append(frame.getMethod().getType().getName()).append('.').append(frame.getMethod().getName())
                    .append(':').append(frame.getLineNumber());
        }
        return frames.toString();
    }

    private static void result(String name, Object value) {
        System.out.println("RESULT " + name + "=" + value);
    }

    static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        }
        catch (ReflectiveOperationException ex) {
            return false;
        }
    }

    /** A class whose initializer blocks: a virtual thread that initializes it is pinned while it sleeps. */
    static final class SlowlyInitialized {

        static {
            try {
                Thread.sleep(200);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
        }

    }

    @SpringBootConfiguration
    @ImportAutoConfiguration({ AopAutoConfiguration.class, RedlockAutoConfiguration.class })
    static class Application {

        @Bean
        Tally tally() {
            return new Tally();
        }

        @Bean
        Counters counters(Tally tally) {
            return new Counters(tally);
        }

        @Bean
        Lost lost() {
            return new Lost();
        }

    }

    /** What the callers of {@link Counters#work} saw; not in the proxied bean, whose fields the proxy does not share. */
    static final class Tally {

        final ConcurrentHashMap<String, AtomicInteger> inside = new ConcurrentHashMap<>();

        final AtomicInteger maxOverlap = new AtomicInteger();

        final AtomicInteger completed = new AtomicInteger();

        final AtomicInteger onPlatformThreads = new AtomicInteger();

    }

    /** The annotated method: counts how many callers are inside at once per key. */
    static class Counters {

        final Tally tally;

        Counters(Tally tally) {
            this.tally = tally;
        }

        @Redlocked(key = "vt:#{#key}", ttl = "30s", waitTime = "240s")
        void work(String key) {
            AtomicInteger here = this.tally.inside.computeIfAbsent(key, (k) -> new AtomicInteger());
            int now = here.incrementAndGet();
            this.tally.maxOverlap.accumulateAndGet(now, Math::max);
            boolean counted = !key.startsWith(WARM_UP);
            if (counted && !isVirtual(Thread.currentThread())) {
                this.tally.onPlatformThreads.incrementAndGet();
            }
            Thread.yield();
            here.decrementAndGet();
            if (counted) {
                this.tally.completed.incrementAndGet();
            }
        }

    }

    /** Records the thread that publishes the loss. */
    static class Lost {

        final CountDownLatch published = new CountDownLatch(1);

        volatile boolean onVirtualThread;

        @EventListener
        void on(RedlockLeaseLostEvent event) {
            this.onVirtualThread = isVirtual(Thread.currentThread());
            this.published.countDown();
        }

    }

}
