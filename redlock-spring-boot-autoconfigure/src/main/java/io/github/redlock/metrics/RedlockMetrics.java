package io.github.redlock.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

import io.github.redlock.aop.RedlockedObserver;
import io.github.redlock.core.NodeStatus;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records the Redlock meters: {@code redlock.acquire} (tags {@code outcome}, {@code lock}),
 * {@code redlock.release}, {@code redlock.extend}, {@code redlock.held} (long task timer, tag {@code lock}),
 * {@code redlock.lost} (tag {@code lock}) and {@code redlock.node.command} (tags {@code node},
 * {@code command}, {@code outcome}). Tag values are bounded: key templates and node addresses, never
 * evaluated keys.
 */
public class RedlockMetrics implements RedlockObserver, RedlockedObserver {

    private final MeterRegistry registry;

    /**
     * Timers by name, then by each tag value in order: found with a few map lookups and no allocation, since
     * node commands are recorded for every node of every lock operation.
     */
    private final TimerTree timers = new TimerTree();

    private final ConcurrentMap<String, LongTaskTimer> held = new ConcurrentHashMap<>();

    private final ConcurrentMap<String, Counter> lost = new ConcurrentHashMap<>();

    /**
     * Creates the meters' recorder.
     * @param registry where the meters are registered
     */
    public RedlockMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void nodeCommand(String node, String command, String outcome, long nanos) {
        timer("redlock.node.command", "Commands of the algorithm sent to one node", "node", node, "command", command,
                "outcome", outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void released(boolean released, long nanos) {
        timer("redlock.release", "Releases of leases", "outcome", released ? "released" : "not-held")
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void extended(boolean extended, long nanos) {
        timer("redlock.extend", "Extensions of leases", "outcome", extended ? "extended" : "failed")
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public Runnable acquisition(String lock, boolean acquired, long nanos) {
        timer("redlock.acquire", "Acquisitions of locks, waiting included", "outcome", acquired ? "acquired" : "failed",
                "lock", lock).record(nanos, TimeUnit.NANOSECONDS);
        if (!acquired) {
            return () -> {
            };
        }
        LongTaskTimer.Sample sample = this.held.computeIfAbsent(lock, (name) -> LongTaskTimer.builder("redlock.held")
                .description("Locks held now, and for how long").tag("lock", name).register(this.registry)).start();
        return sample::stop;
    }

    @Override
    public void lost(String lock) {
        this.lost.computeIfAbsent(lock, (name) -> Counter.builder("redlock.lost")
                .description("Locks lost while their holder still worked: validity ran out, or an automatic extension failed").tag("lock", name)
                .register(this.registry)).increment();
    }

    /**
     * Counts the nodes of a lock that are quarantined now, for the {@code redlock.nodes.quarantined} gauge.
     * @param redlock the lock, or null before it exists
     * @return how many of its nodes do not vote yet after a restart
     */
    public static double quarantined(@Nullable Redlock redlock) {
        if (redlock == null) {
            return 0;
        }
        return redlock.nodeStatuses().values().stream().filter((status) -> status.state() == NodeStatus.State.QUARANTINED).count();
    }

    /**
     * Counts the nodes of a lock that vote now, for the {@code redlock.nodes.voting} gauge.
     * @param redlock the lock, or null before it exists
     * @return how many of its nodes are {@code UP}
     */
    public static double voting(@Nullable Redlock redlock) {
        if (redlock == null) {
            return 0;
        }
        return redlock.nodeStatuses().values().stream().filter((status) -> status.state() == NodeStatus.State.UP).count();
    }

    /**
     * The quorum of a lock, for the {@code redlock.quorum} gauge.
     * @param redlock the lock, or null before it exists
     * @return how many nodes must agree, or NaN before the lock exists
     */
    public static double quorum(@Nullable Redlock redlock) {
        return (redlock != null) ? redlock.quorum() : Double.NaN;
    }

    /**
     * Counts the releases a lock owes its nodes, for the {@code redlock.releases.owed} gauge.
     * @param redlock the lock, or null before it exists
     * @return the releases and clean-ups not yet delivered, over all its nodes
     */
    public static double owedReleases(@Nullable Redlock redlock) {
        if (redlock == null) {
            return 0;
        }
        return redlock.nodeStatuses().values().stream().mapToInt(NodeStatus::owedReleases).sum();
    }

    private Timer timer(String name, String description, String... tags) {
        TimerTree node = this.timers.child(name);
        for (int i = 1; i < tags.length; i += 2) {
            node = node.child(tags[i]);
        }
        Timer timer = node.timer;
        if (timer == null) {
            timer = Timer.builder(name).description(description).tags(tags).register(this.registry); // idempotent
            node.timer = timer;
        }
        return timer;
    }

    /** One level of the timer cache: the children by the next tag value, and the timer at a leaf. */
    private static final class TimerTree {

        private final ConcurrentMap<String, TimerTree> children = new ConcurrentHashMap<>();

        private volatile @Nullable Timer timer;

        TimerTree child(String value) {
            TimerTree child = this.children.get(value);
            return (child != null) ? child : this.children.computeIfAbsent(value, (key) -> new TimerTree());
        }

    }

}
