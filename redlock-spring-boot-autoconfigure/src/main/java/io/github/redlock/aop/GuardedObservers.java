package io.github.redlock.aop;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Tells every {@link RedlockedObserver} bean what an annotated call did, in order, and keeps what they throw
 * away from the lock. Invariant: no method here throws, and the release callback it returns never throws,
 * so an observer that fails (e.g. a meter registry whose filter throws) can neither skip a release nor turn
 * a call that worked into a failure. Failures are logged at WARN, at most once a minute for each callback.
 */
final class GuardedObservers {

    private static final Log logger = LogFactory.getLog(GuardedObservers.class);

    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final ObjectProvider<RedlockedObserver> provider;

    /** The observer beans, looked up at the first call (they are singletons; the aspect is created early). */
    private volatile @Nullable List<RedlockedObserver> observers;

    private final Warning acquisitionFailed = new Warning("acquisition(…)");

    private final Warning releaseFailed = new Warning("the release callback returned by acquisition(…)");

    private final Warning lostFailed = new Warning("lost(…)");

    GuardedObservers(ObjectProvider<RedlockedObserver> provider) {
        this.provider = provider;
    }

    /**
     * Tells each observer of an acquisition attempt.
     * @return runs each observer's release callback, guarded; null when there is nothing to run
     */
    @Nullable Runnable acquisition(String lock, boolean acquired, long nanos) {
        List<RedlockedObserver> all = observers();
        if (all.isEmpty()) {
            return null;
        }
        if (all.size() == 1) {
            Runnable onRelease = acquisition(all.get(0), lock, acquired, nanos);
            return (onRelease != null) ? () -> released(onRelease, lock) : null;
        }
        Runnable[] onRelease = new Runnable[all.size()];
        for (int i = 0; i < onRelease.length; i++) {
            onRelease[i] = acquisition(all.get(i), lock, acquired, nanos);
        }
        return () -> {
            for (Runnable each : onRelease) {
                if (each != null) {
                    released(each, lock);
                }
            }
        };
    }

    /** Tells each observer that a lock was lost while its method still worked. */
    void lost(String lock) {
        for (RedlockedObserver observer : observers()) {
            try {
                observer.lost(lock);
            }
            catch (RuntimeException ex) {
                this.lostFailed.log(observer, lock, ex);
            }
        }
    }

    private @Nullable Runnable acquisition(RedlockedObserver observer, String lock, boolean acquired, long nanos) {
        try {
            return observer.acquisition(lock, acquired, nanos);
        }
        catch (RuntimeException ex) {
            this.acquisitionFailed.log(observer, lock, ex);
            return null;
        }
    }

    private void released(Runnable onRelease, String lock) {
        try {
            onRelease.run();
        }
        catch (RuntimeException ex) {
            this.releaseFailed.log(onRelease, lock, ex);
        }
    }

    private List<RedlockedObserver> observers() {
        List<RedlockedObserver> all = this.observers;
        if (all == null) {
            all = this.provider.orderedStream().toList();
            this.observers = all;
        }
        return all;
    }

    /** One kind of failure, logged at most once per interval so that a broken observer cannot flood the log. */
    private static final class Warning {

        private final String callback;

        private final AtomicLong nextNanos = new AtomicLong(System.nanoTime());

        private final AtomicLong suppressed = new AtomicLong();

        Warning(String callback) {
            this.callback = callback;
        }

        void log(Object culprit, String lock, RuntimeException ex) {
            long now = System.nanoTime();
            long next = this.nextNanos.get();
            if (now - next < 0 || !this.nextNanos.compareAndSet(next, now + WARN_INTERVAL_NANOS)) {
                this.suppressed.incrementAndGet();
                return;
            }
            long before = this.suppressed.getAndSet(0);
            logger.warn("A RedlockedObserver (" + culprit.getClass().getName() + ") threw from " + this.callback
                    + " for lock '" + lock + "'; the lock was handled as if it had not"
                    + ((before > 0) ? " (" + before + " more such failures since the last warning)" : "")
                    + ". Failures of this callback are logged at most once a minute.", ex);
        }

    }

}
