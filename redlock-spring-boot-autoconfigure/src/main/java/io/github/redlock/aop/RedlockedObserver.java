package io.github.redlock.aop;

import org.jspecify.annotations.Nullable;

/**
 * Receives what {@code @Redlocked} calls do, for metrics; the starter's Micrometer support implements it.
 * Lock names are the annotations' key templates as written, never evaluated keys. Every bean of this type is
 * told, in order. An observer that throws is logged at WARN and otherwise ignored: the method still runs, and
 * its lock is still released.
 */
public interface RedlockedObserver {

    /**
     * An annotated call tried to acquire its lock.
     * @param lock the key template, e.g. {@code order:#{#order.id}}
     * @param acquired whether it got the lock (a skipped call did not)
     * @param nanos how long the acquisition took, waiting included
     * @return run once when the lock is released, or {@code null} for nothing to run; ignored when not acquired
     */
    @Nullable Runnable acquisition(String lock, boolean acquired, long nanos);

    /**
     * The lock was lost while the annotated method still worked (its validity ran out, or an automatic
     * extension failed): another caller may have run at the same time. Reported once per call.
     * @param lock the key template
     */
    void lost(String lock);

}
