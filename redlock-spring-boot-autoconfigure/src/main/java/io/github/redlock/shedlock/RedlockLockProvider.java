package io.github.redlock.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} backed by a {@link Redlock}: the lock named {@code name} is the
 * exclusive Redlock of the key {@code <keyPrefix><name>} ({@code shedlock:<name>} by default), taken on a
 * quorum of nodes without waiting, as ShedLock expects (a task whose lock is taken is skipped).
 * <ul>
 * <li>{@code lockAtMostFor} is the lease's ttl: a holder that dies frees the lock after it. Above the lock's
 * {@link Redlock#maxTtl() maxTtl} (no key lives longer than that without a live holder), the lease's ttl is
 * {@code maxTtl} and it is extended automatically until {@code lockAtMostFor}: the same bound while the holder
 * lives, and a dead holder's lock is freed sooner.</li>
 * <li>{@code lockAtLeastFor}: the unlock leaves the key on the nodes until then
 * ({@link RedlockLease#releaseAfter(Duration)}), also if this process stops meanwhile; at most {@code maxTtl}
 * after the unlock.</li>
 * <li>{@link SimpleLock#extend(Duration, Duration)} (for {@code KeepAliveLockProvider} and
 * {@code LockExtender}) extends the lease to the new {@code lockAtMostFor} from now, in the same way; the
 * extended lock's {@code lockAtLeastFor} counts from the extension, as ShedLock's own providers do.</li>
 * </ul>
 * Thread-safe. Auto-configured when ShedLock is on the classpath and no other {@code LockProvider} is defined.
 */
public final class RedlockLockProvider implements ExtensibleLockProvider {

    /** The prefix of the keys of ShedLock's locks, by default. */
    public static final String DEFAULT_KEY_PREFIX = "shedlock:";

    private final Redlock redlock;

    private final String keyPrefix;

    /**
     * Creates a provider whose locks are the keys {@code shedlock:<name>}.
     * @param redlock the lock to take them with
     */
    public RedlockLockProvider(Redlock redlock) {
        this(redlock, DEFAULT_KEY_PREFIX);
    }

    /**
     * Creates a provider whose locks are the keys {@code <keyPrefix><name>}.
     * @param redlock the lock to take them with
     * @param keyPrefix prepended to each lock's name (after the Redlock's own prefix), possibly empty
     */
    public RedlockLockProvider(Redlock redlock, String keyPrefix) {
        this.redlock = Objects.requireNonNull(redlock, "redlock");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
    }

    /**
     * Takes the lock of the configuration's name on a quorum of nodes, without waiting.
     * @param configuration the lock's name, {@code lockAtMostFor} and {@code lockAtLeastFor}
     * @return the lock, or empty when another holder has it or no quorum answered
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        long start = System.nanoTime();
        Duration atMost = configuration.getLockAtMostFor();
        Duration maxTtl = this.redlock.maxTtl();
        boolean longerThanMaxTtl = atMost.compareTo(maxTtl) > 0;
        Optional<RedlockLease> lease = this.redlock.tryAcquire(this.keyPrefix + configuration.getName(), longerThanMaxTtl ? maxTtl : atMost);
        if (longerThanMaxTtl) {
            lease.ifPresent((held) -> held.autoExtend(atMost));
        }
        return lease.map((held) -> new RedlockSimpleLock(configuration, held, start, start, maxTtl));
    }

    @Override
    public String toString() {
        return "RedlockLockProvider[keyPrefix=" + this.keyPrefix + ", " + this.redlock + "]";
    }

    /** One hold of a ShedLock lock: a lease, and when it was asked for (for {@code lockAtLeastFor}). */
    private static final class RedlockSimpleLock extends AbstractSimpleLock {

        private final RedlockLease lease;

        /** When the lease was asked for ({@link System#nanoTime()}): its maximum hold counts from then. */
        private final long acquiredNanos;

        /** When this lock (the first, or an extension) was asked for: {@code lockAtLeastFor} counts from then. */
        private final long startNanos;

        private final Duration maxTtl;

        RedlockSimpleLock(LockConfiguration configuration, RedlockLease lease, long acquiredNanos, long startNanos, Duration maxTtl) {
            super(configuration);
            this.lease = lease;
            this.acquiredNanos = acquiredNanos;
            this.startNanos = startNanos;
            this.maxTtl = maxTtl;
        }

        @Override
        protected void doUnlock() {
            Duration left = this.lockConfiguration.getLockAtLeastFor().minusNanos(System.nanoTime() - this.startNanos);
            if (left.isNegative() || left.isZero()) {
                this.lease.release();
                return;
            }
            Duration keep = (left.compareTo(this.maxTtl) > 0) ? this.maxTtl : left;
            keep = (keep.compareTo(Duration.ofMillis(1)) < 0) ? Duration.ofMillis(1) : keep;
            if (this.lease.isValid() && keep.compareTo(this.lease.remainingValidity()) > 0) {
                this.lease.extend(keep); // a key is never kept longer than the nodes hold it
            }
            this.lease.releaseAfter(keep);
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
            long now = System.nanoTime();
            Duration atMost = configuration.getLockAtMostFor();
            boolean longerThanMaxTtl = atMost.compareTo(this.maxTtl) > 0;
            if (!this.lease.extend(longerThanMaxTtl ? this.maxTtl : atMost)) {
                return Optional.empty();
            }
            if (longerThanMaxTtl) {
                this.lease.autoExtend(atMost.plusNanos(now - this.acquiredNanos));
            }
            return Optional.of(new RedlockSimpleLock(configuration, this.lease, this.acquiredNanos, now, this.maxTtl));
        }

    }

}
