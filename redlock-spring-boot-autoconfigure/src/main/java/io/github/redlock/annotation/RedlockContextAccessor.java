package io.github.redlock.annotation;

import io.github.redlock.core.RedlockLease;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Carries {@link RedlockContext#currentLease()} across threads for Micrometer's context-propagation library: a
 * {@code ContextSnapshot} captures the lease on the thread that holds it and makes it current on the thread that
 * runs the work, for as long as the work runs. The library registers it (a {@code META-INF/services} entry that
 * {@code ContextRegistry.getInstance()} loads), so applications need not; Reactor and Spring's
 * {@code ContextPropagatingTaskDecorator} then carry the lease as they carry Micrometer's observations.
 * <p>
 * A Reactor context entry under {@link #KEY} is the lease that operators see when automatic context propagation
 * is on. Values are {@link RedlockLease}s, or absent.
 */
public final class RedlockContextAccessor implements ThreadLocalAccessor<RedlockLease> {

    /** The key of the lease in context snapshots and Reactor contexts. */
    public static final String KEY = "io.github.redlock.lease";

    /** Creates the accessor; {@code ContextRegistry} does this through its service loader. */
    public RedlockContextAccessor() {
    }

    /**
     * Returns {@link #KEY}.
     * @return the key
     */
    @Override
    public Object key() {
        return KEY;
    }

    /**
     * Returns the lease current on this thread.
     * @return the lease, or null when there is none
     */
    @Override
    public @Nullable RedlockLease getValue() {
        return RedlockContext.get();
    }

    /**
     * Makes a captured lease current on this thread.
     * @param value the lease
     */
    @Override
    public void setValue(RedlockLease value) {
        RedlockContext.set(value);
    }

    /** Makes no lease current on this thread: the captured context had none. */
    @Override
    public void setValue() {
        RedlockContext.set(null);
    }

    /**
     * Makes the lease current again that was current before the captured one was set.
     * @param previousValue the lease before
     */
    @Override
    public void restore(RedlockLease previousValue) {
        RedlockContext.set(previousValue);
    }

    /** Makes no lease current on this thread again, as before the captured one was set. */
    @Override
    public void restore() {
        RedlockContext.set(null);
    }

}
