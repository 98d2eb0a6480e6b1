package io.github.redlock.sample.leader;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.integration.RedlockLockRegistry;
import jakarta.annotation.PreDestroy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * The outbox relay, a job for one instance at a time: every second it publishes the order events recorded in
 * the outbox to the message broker (here a stand-in that counts its runs), and two relays would publish each
 * event twice. It runs on the leader only: it starts when the {@link LockRegistryLeaderInitiator} grants this
 * instance the leadership and stops when the leadership is revoked (the instance stops, or its lease is lost).
 * <p>
 * Each run carries the leadership's epoch, the fencing token of the leader's lease, which rises with every
 * new leader: a run still in flight when the leadership ends may overlap the next leader's first, and the
 * broker keeps the batch of the greater epoch.
 */
@Component
public class OutboxRelay implements Candidate {

    /** The role the instances compete for: the leader's lock key in the registry. */
    static final String ROLE = "outbox-relay";

    private static final Duration PERIOD = Duration.ofSeconds(1);

    private static final Duration STEP_DOWN_TIMEOUT = Duration.ofSeconds(5);

    private static final Log logger = LogFactory.getLog(OutboxRelay.class);

    private final String id = UUID.randomUUID().toString().substring(0, 8);

    private final AtomicLong runs = new AtomicLong();

    private final RedlockLockRegistry locks;

    private final TaskScheduler scheduler;

    /** Guards {@link #term}; a lock rather than {@code synchronized}, which would pin a virtual thread that waits. */
    private final ReentrantLock guard = new ReentrantLock();

    /** Signalled when this instance steps down. */
    private final Condition steppedDown = this.guard.newCondition();

    /** The leadership this instance holds, null while it follows; guarded by {@link #guard}. */
    private Term term;

    OutboxRelay(RedlockLockRegistry locks, TaskScheduler scheduler) {
        this.locks = locks;
        this.scheduler = scheduler;
    }

    @Override
    public String getRole() {
        return ROLE;
    }

    @Override
    public String getId() {
        return this.id;
    }

    /** Starts relaying, stamped with the epoch of the lease that made this instance the leader. */
    @Override
    public void onGranted(Context context) {
        long epoch = this.locks.lease(ROLE).map(RedlockLease::fencingToken)
                .orElseThrow(() -> new IllegalStateException("Granted the leadership without holding its lock"));
        this.guard.lock();
        try {
            ScheduledFuture<?> task = this.scheduler.scheduleAtFixedRate(() -> relay(epoch), PERIOD);
            this.term = new Term(epoch, task);
        }
        finally {
            this.guard.unlock();
        }
        logger.info("Instance " + this.id + " leads with epoch " + epoch + ": relaying the outbox");
    }

    /** Stops relaying. */
    @Override
    public void onRevoked(Context context) {
        this.guard.lock();
        try {
            if (this.term != null) {
                this.term.task().cancel(true);
                logger.info("Instance " + this.id + " no longer leads (epoch " + this.term.epoch() + "): relay stopped");
                this.term = null;
                this.steppedDown.signalAll();
            }
        }
        finally {
            this.guard.unlock();
        }
    }

    /**
     * Returns what this instance is doing.
     * @return its id and process, whether it leads, its epoch when it does, and how many times the relay ran here
     */
    public Status status() {
        this.guard.lock();
        try {
            return new Status(this.id, ProcessHandle.current().pid(), this.term != null,
                    (this.term != null) ? this.term.epoch() : null, this.runs.get());
        }
        finally {
            this.guard.unlock();
        }
    }

    /**
     * Waits, at most 5 s, until this instance has stepped down. Stopping the initiator only interrupts the
     * thread that holds the lock, and that thread then releases it; this keeps the Redlock open until it has,
     * so that a follower takes over at once instead of after the ttl. Runs before the Redlock closes, as this
     * bean depends on it through the registry.
     * @throws InterruptedException if interrupted while waiting
     */
    @PreDestroy
    void awaitStepDown() throws InterruptedException {
        long left = STEP_DOWN_TIMEOUT.toNanos();
        this.guard.lock();
        try {
            while (this.term != null) {
                if (left <= 0) {
                    logger.warn("Instance " + this.id + " still leads " + STEP_DOWN_TIMEOUT.toSeconds()
                            + " s after the stop: its lease will expire with its ttl");
                    return;
                }
                left = this.steppedDown.awaitNanos(left);
            }
        }
        finally {
            this.guard.unlock();
        }
    }

    private void relay(long epoch) {
        long run = this.runs.incrementAndGet();
        // A stand-in for the work: read the unsent outbox rows, publish them with the epoch, mark them sent.
        logger.debug("Relayed the outbox (run " + run + " here, epoch " + epoch + ")");
    }

    /**
     * What {@code GET /leader} answers.
     *
     * @param instance this instance's id, random per start
     * @param pid the id of this instance's process, e.g. to kill it and watch another instance take over
     * @param leader whether this instance leads
     * @param epoch the fencing token of the leader's lease while this instance leads, else null
     * @param runs how many times the relay ran on this instance
     */
    public record Status(String instance, long pid, boolean leader, Long epoch, long runs) {
    }

    private record Term(long epoch, ScheduledFuture<?> task) {
    }

}
