package io.github.redlock.annotation;

import java.util.Optional;

import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

/**
 * The lease of the lock that the running {@link Redlocked @Redlocked} method holds, for code that needs it: its
 * fencing token for the storage ({@link RedlockLease#fencingToken()}), its remaining validity, or its loss
 * signal.
 *
 * <pre>{@code
 * @Redlocked(key = "account:#{#id}", ttl = "10s")
 * void settle(String id) {
 *     long token = RedlockContext.currentLease().orElseThrow().fencingToken();
 *     accounts.updateIfNewer(id, balance, token); // UPDATE ... WHERE id = ? AND fence < ?
 * }
 * }</pre>
 *
 * The lease is the innermost one: a method annotated on another key sees its own lease, and a re-entrant call
 * on a key the thread holds already sees the outer call's lease, which it shares. It is bound to the thread
 * that runs the method's body, while the body runs: a method that returns a {@code CompletionStage} sees it
 * in its body, not in work it hands to other threads; a method that returns a reactive type sees it while it
 * assembles its publisher (on the thread that took the lock, at subscription), not in operators that run
 * later, unless context propagation carries it there (below). Read it in the body and pass it along. Outside annotated methods it is empty, unless code made a
 * lease current itself with {@link #open(RedlockLease)}.
 * <p>
 * With Micrometer's context-propagation library on the classpath, the lease also follows the thread hops that
 * Spring propagates context across, through {@link RedlockContextAccessor} (registered by the library itself):
 * executors decorated with a {@code ContextPropagatingTaskDecorator} ({@code spring.task.execution.propagate-context=true}
 * for Boot's executor, which {@code @Async} methods use) and, with {@code spring.reactor.context-propagation=auto},
 * Reactor operators, both those of publishers made in the body and those of a reactive method's own publisher
 * (the aspect writes the lease into its subscription's Reactor context). Propagated work sees the lease; the lock
 * is still held only until the method returns or its publisher ends, so work that outlives it must not rely on it.
 * <p>
 * In a Kotlin {@code suspend fun} it is bound to the coroutine that runs the body, not to a thread: the aspect adds
 * an element to that coroutine's context (a kotlinx-coroutines {@code ThreadContextElement}, which the body's
 * children inherit) that makes the lease current on whichever thread the coroutine resumes, after a {@code delay},
 * in {@code withContext(Dispatchers.IO)}, in {@code launch} or {@code async} inside the body, and takes it away
 * whenever the coroutine suspends there, so that another coroutine on that thread never sees it. The same element
 * carries the coroutine's locks for re-entrant calls. The items of a {@code Flow} that the function returns are
 * made outside that coroutine, where the Flow is collected, like the operators of a {@code Flux}: read the lease
 * in the function and pass it along. In a coroutine, close a scope of {@link #open(RedlockLease)} before the next
 * suspension point.
 */
public final class RedlockContext {

    private static final ThreadLocal<RedlockLease> current = new ThreadLocal<>();

    private RedlockContext() {
    }

    /**
     * Returns the lease of the innermost lock the running annotated method holds on this thread.
     * @return the lease, or empty outside annotated methods
     */
    public static Optional<RedlockLease> currentLease() {
        return Optional.ofNullable(current.get());
    }

    /**
     * Makes a lease the current one on this thread until the returned scope is closed, which restores the one
     * before; the aspect does this around each annotated method. Code that acquires leases by hand may use it
     * for code it calls that reads {@link #currentLease()}. Close the scope on the same thread, in reverse order
     * of opening (try-with-resources).
     * @param lease the lease to make current
     * @return the scope to close
     * @throws IllegalArgumentException if {@code lease} is null
     */
    public static Scope open(RedlockLease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        RedlockLease previous = current.get();
        current.set(lease);
        return new OpenScope(Thread.currentThread(), lease, previous);
    }

    /** The current lease on this thread, or null: for {@link RedlockContextAccessor}. */
    static @Nullable RedlockLease get() {
        return current.get();
    }

    /** Makes a lease current on this thread, or none when null: for {@link RedlockContextAccessor}. */
    static void set(@Nullable RedlockLease lease) {
        if (lease != null) {
            current.set(lease);
        }
        else {
            current.remove();
        }
    }

    /**
     * A lease made current by {@link #open(RedlockLease)}; closing it restores the lease current before.
     */
    public interface Scope extends AutoCloseable {

        /**
         * Restores the lease that was current before this scope was opened. Closing it again does nothing.
         * @throws IllegalStateException if called on another thread than the one that opened it, or while a
         * scope opened after it is still open (close scopes in reverse order); nothing is changed then
         */
        @Override
        void close();

    }

    /** The scope of one {@link #open(RedlockLease)}: closes once, on its thread, innermost first. */
    private static final class OpenScope implements Scope {

        private final Thread owner;

        private final RedlockLease lease;

        private final @Nullable RedlockLease previous;

        private boolean closed; // only its owner thread reads or writes it

        OpenScope(Thread owner, RedlockLease lease, @Nullable RedlockLease previous) {
            this.owner = owner;
            this.lease = lease;
            this.previous = previous;
        }

        @Override
        public void close() {
            if (Thread.currentThread() != this.owner) {
                throw new IllegalStateException("A RedlockContext scope must be closed on the thread that opened it ("
                        + this.owner.getName() + "), not on " + Thread.currentThread().getName());
            }
            if (this.closed) {
                return;
            }
            if (current.get() != this.lease) {
                throw new IllegalStateException("RedlockContext scopes must be closed in reverse order of opening: a scope "
                        + "opened after this one is still open");
            }
            this.closed = true;
            set(this.previous);
        }

    }

}
