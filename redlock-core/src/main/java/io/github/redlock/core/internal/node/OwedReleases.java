package io.github.redlock.core.internal.node;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.github.redlock.core.internal.script.LuaScript;

/**
 * The releases and clean-ups one node could not receive while it was disconnected, kept to send once it is
 * back: a partition must not leave a released key on the far side until it expires. Bounded by
 * {@link NodeLimits#OWED_LIMIT}; past it a release is dropped (its key expires with its ttl) and a warning says
 * so, at most once a minute. A release is dropped too once its key could no longer exist.
 */
public final class OwedReleases {

    private static final System.Logger logger = System.getLogger(OwedReleases.class.getName());

    private final String node;

    private final ConcurrentLinkedQueue<Release> owed = new ConcurrentLinkedQueue<>();

    private final AtomicInteger count = new AtomicInteger();

    /** When a dropped release was last logged; 0 before the first. */
    private final AtomicLong droppedLoggedAt = new AtomicLong();

    OwedReleases(String node) {
        this.node = node;
    }

    /** How many releases are owed now. */
    public int size() {
        return Math.max(0, this.count.get());
    }

    /**
     * Keeps a release to send later.
     * @return whether it was kept (not expired, not over the bound)
     */
    boolean owe(Release release) {
        if (release.untilNanos() - System.nanoTime() <= 0) {
            return false;
        }
        if (this.count.incrementAndGet() > NodeLimits.OWED_LIMIT) {
            this.count.decrementAndGet();
            long now = System.nanoTime();
            long last = this.droppedLoggedAt.get();
            if ((last == 0 || now - last >= TimeUnit.MINUTES.toNanos(1)) && this.droppedLoggedAt.compareAndSet(last, (now == 0) ? 1 : now)) {
                logger.log(System.Logger.Level.WARNING, "Node " + this.node + " is unreachable with " + NodeLimits.OWED_LIMIT
                        + " releases waiting to be sent; further keys there are left to expire with their ttl");
            }
            return false;
        }
        this.owed.add(release);
        return true;
    }

    /** Hands every owed release whose key may still exist to {@code send}, once; the rest are dropped. */
    void drain(Consumer<Release> send) {
        long now = System.nanoTime();
        for (int left = this.count.get(); left > 0; left--) {
            Release release = this.owed.poll();
            if (release == null) {
                return;
            }
            this.count.decrementAndGet();
            if (release.untilNanos() - now > 0) {
                send.accept(release);
            }
        }
    }

    void clear() {
        this.owed.clear();
        this.count.set(0);
    }

    /**
     * A release or clean-up that could not be sent.
     * @param script the release script
     * @param keys its keys
     * @param args its arguments (the token)
     * @param untilNanos until when ({@link System#nanoTime()}) the key could exist on the node
     */
    public record Release(LuaScript script, byte[][] keys, byte[][] args, long untilNanos) {
    }

}
