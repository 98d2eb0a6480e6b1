package io.github.redlock.core.internal.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.core.ManualTimer;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.internal.lease.Attempt;
import io.github.redlock.core.internal.lease.ExtendOutcome;
import io.github.redlock.core.internal.lease.Extension;
import io.github.redlock.core.internal.lease.LeaseHandle;
import io.github.redlock.core.internal.lease.LeaseOperations;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.github.redlock.core.internal.script.LockType;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * A lock engine of three nodes for {@link Retries}, whose attempts a test completes by hand; also the operations of the
 * leases it makes, which count releases.
 */
public final class FakeEngine implements Retries.Attempts, LeaseOperations {

    final LinkedBlockingQueue<Call> pending = new LinkedBlockingQueue<>();

    final List<Call> calls = new CopyOnWriteArrayList<>();

    final List<CompletableFuture<?>> tracked = new CopyOnWriteArrayList<>();

    final List<FakeSubscription> subscriptions = new CopyOnWriteArrayList<>();

    final List<RedlockLease> followed = new CopyOnWriteArrayList<>();

    final List<RedlockLease> unfollowed = new CopyOnWriteArrayList<>();

    final AtomicInteger releases = new AtomicInteger();

    volatile boolean closed;

    volatile long retryDelayNanos = TimeUnit.HOURS.toNanos(1);

    volatile RuntimeException throwing;

    /** The next attempt, waiting up to 5 s for it: it may start on another thread. */
    Call next() {
        try {
            Call call = this.pending.poll(5, TimeUnit.SECONDS);
            if (call == null) {
                throw new TimeoutException("no attempt within 5 s; attempts so far: " + this.calls.size());
            }
            return call;
        }
        catch (InterruptedException | TimeoutException ex) {
            throw new AssertionError(ex);
        }
    }

    @Override
    public CompletableFuture<Attempt> attempt(LockType type, String key, LockType.Keys keys, long ttlMillis, long deadlineNanos,
            boolean waiting, String acquisitionToken) {
        if (this.throwing != null) {
            throw this.throwing;
        }
        Call call = new Call(key, ttlMillis, waiting, acquisitionToken, new CompletableFuture<>());
        this.calls.add(call);
        this.pending.add(call);
        return call.outcome();
    }

    @Override
    public boolean isClosed() {
        return this.closed;
    }

    @Override
    public ReleaseMessages.Subscription listen(byte[][] channels, ReleaseMessages.Waiter waiter) {
        FakeSubscription subscription = new FakeSubscription(channels);
        this.subscriptions.add(subscription);
        return subscription;
    }

    @Override
    public <T> CompletableFuture<T> track(CompletableFuture<T> work) {
        this.tracked.add(work);
        return work;
    }

    @Override
    public int nodeCount() {
        return 3;
    }

    @Override
    public int quorum() {
        return 2;
    }

    @Override
    public long retryDelayNanos() {
        return this.retryDelayNanos;
    }

    @Override
    public void follow(RedlockLease holder, Retries successor) {
        this.followed.add(holder);
    }

    @Override
    public void unfollow(RedlockLease holder, Retries successor) {
        this.unfollowed.add(holder);
    }

    @Override
    public CompletableFuture<ExtendOutcome> extend(LeaseHandle lease, long ttlMillis, Extension by) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Boolean> releaseLater(LeaseHandle lease, long keepMillis) {
        return release(lease);
    }

    @Override
    public CompletableFuture<Boolean> release(LeaseHandle lease) {
        this.releases.incrementAndGet();
        return CompletableFuture.completedFuture(true);
    }

    @Override
    public Timeout schedule(TimerTask task, long delayNanos) {
        return new ManualTimer().newTimeout(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public long maxTtlMillis() {
        return 60_000;
    }

    @Override
    public long callBoundNanos() {
        return TimeUnit.SECONDS.toNanos(5);
    }

    @Override
    public RedlockObserver observer() {
        return null;
    }

    /** One attempt the loop asked for, and its outcome, which the test completes. */
    record Call(String key, long ttlMillis, boolean waiting, String token, CompletableFuture<Attempt> outcome) {
    }

    static final class FakeSubscription implements ReleaseMessages.Subscription {

        final byte[][] channels;

        volatile int onNodes;

        volatile boolean closed;

        FakeSubscription(byte[][] channels) {
            this.channels = channels;
        }

        @Override
        public void onNodes() {
            this.onNodes++;
        }

        @Override
        public void close() {
            this.closed = true;
        }

    }

}
