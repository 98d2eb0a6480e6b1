package io.github.redlock.fencing.internal;

import java.util.List;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Not API. Gives the transactions of a piece of work a fence check: each advances the fences of the work's resources to
 * its fencing token with the {@link JdbcFence}, just before it commits (a {@link TransactionSynchronization#beforeCommit}),
 * or rolls back with a {@link StaleFencingTokenException} when a later holder's token is there.
 * <p>
 * A {@link Guard} is open on one thread while the work runs there. The transaction active as it opens gets the check at
 * once when the work runs in it ({@code joinActive}); and every new transaction begun on that thread while it is open
 * (the work's own, and any {@code REQUIRES_NEW} one in it) gets it as it begins, through the {@link #LISTENER} that
 * {@link #registrar()} adds to each transaction manager. Guards nest, and a transaction begun inside nested guards gets
 * the check of each that is open (a fenced method called by a fenced request). Only transactions that open their own
 * synchronization scope are checked as they begin: one of another transaction manager begun inside an active scope
 * commits without running it (its writes, in another store, are not fenced).
 * <p>
 * The check also refuses a commit while the guard is open and the work's lease is known to have run out (another
 * caller may hold the lock and read): {@link StaleFencingTokenException#isLeaseExpired()}.
 */
public final class TransactionGuards {

    /** The innermost open guard on this thread, or null. */
    private static final ThreadLocal<@Nullable Guard> open = new ThreadLocal<>();

    /** Gives each transaction begun on a thread with an open guard that guard's check. */
    static final TransactionExecutionListener LISTENER = new TransactionExecutionListener() {

        @Override
        public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
            // Only a transaction that opened its own synchronization scope runs beforeCommit at its own commit: one begun
            // by another transaction manager inside an active scope shares it, and its check would run at the outer
            // commit instead (that outer transaction has the check already, if a guard covers it).
            if (beginFailure != null || !transaction.isNewTransaction() || !(transaction instanceof DefaultTransactionStatus status)
                    || !status.isNewSynchronization() || !TransactionSynchronizationManager.isSynchronizationActive()) {
                return;
            }
            for (Guard guard = open.get(); guard != null; guard = guard.outer) {
                if (guard.isOpen) {
                    guard.register(); // every open guard: a fenced call inside a fenced call, or inside a fenced request
                }
            }
        }

    };

    private final JdbcFence fence;

    private final DataSource dataSource;

    /**
     * Creates the guards of one fence.
     * @param fence the fence the checks advance, whose {@code DataSource} the checked transactions must be of
     */
    public TransactionGuards(JdbcFence fence) {
        this.fence = fence;
        this.dataSource = fence.getDataSource();
    }

    /**
     * Returns the fence the checks advance.
     * @return the fence
     */
    public JdbcFence fence() {
        return this.fence;
    }

    /**
     * Opens a guard on this thread; close it on the same thread when the work is done.
     * @param owner what the work is, as errors name it, e.g. {@code @Redlocked(fenced = true) on Ledger.change(String)}
     * @param resources the resources whose fences each check advances, e.g. a lock's names
     * @param token the work's fencing token, asked for at each check
     * @param expired whether the work's lease ran out, asked for at a check while the guard is open
     * @param joinActive whether the work runs in the transaction active now, which then gets the check at once
     * @return the open guard
     */
    public Guard open(String owner, List<String> resources, LongSupplier token, BooleanSupplier expired, boolean joinActive) {
        Guard guard = new Guard(owner, List.copyOf(new TreeSet<>(resources)), token, expired, open.get());
        if (joinActive && TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive()) {
            guard.register();
        }
        open.set(guard);
        return guard;
    }

    /**
     * Counts the guards open on this thread, for tests and diagnostics: none outside a fenced call or request.
     * @return how many guards are open here
     */
    public static int openOnThisThread() {
        int count = 0;
        for (Guard guard = open.get(); guard != null; guard = guard.outer) {
            count += guard.isOpen ? 1 : 0;
        }
        return count;
    }

    /**
     * Returns a post-processor that adds the listener behind guards to every transaction manager that takes listeners
     * (each {@link ConfigurableTransactionManager}: Spring's JDBC, JPA and JTA ones), so that a transaction begun
     * while a guard is open gets its check.
     * @return the post-processor
     */
    public static BeanPostProcessor registrar() {
        return new BeanPostProcessor() {

            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof ConfigurableTransactionManager manager && !manager.getTransactionExecutionListeners().contains(LISTENER)) {
                    manager.addListener(LISTENER);
                }
                return bean;
            }

        };
    }

    /** One open guard: a piece of work's resources, token and lease, and whether a transaction got its check. */
    public final class Guard implements AutoCloseable {

        private final String owner;

        private final List<String> resources;

        private final LongSupplier token;

        private final BooleanSupplier expired;

        private final @Nullable Guard outer;

        private final Thread thread = Thread.currentThread();

        /** Whether the guard is still open: then a lease that ran out is still the work's, and refuses a commit. */
        private volatile boolean isOpen = true;

        /** Whether a transaction got the check; read on the guard's thread only. */
        private boolean checked;

        Guard(String owner, List<String> resources, LongSupplier token, BooleanSupplier expired, @Nullable Guard outer) {
            this.owner = owner;
            this.resources = resources;
            this.token = token;
            this.expired = expired;
            this.outer = outer;
        }

        /**
         * Returns whether a transaction got the check while the guard was open.
         * @return whether any transaction of the work is fenced
         */
        public boolean checked() {
            return this.checked;
        }

        /**
         * Returns the resources whose fences the checks advance.
         * @return the resources, sorted
         */
        public List<String> resources() {
            return this.resources;
        }

        /**
         * Closes the guard: no transaction begun from now on gets its check, and a check still to come (of a transaction
         * that commits later, the caller's) no longer asks whether the lease ran out. On another thread than the one that
         * opened it, only the latter.
         */
        @Override
        public void close() {
            this.isOpen = false;
            if (Thread.currentThread() != this.thread || open.get() != this) {
                // On another thread, or closed before a guard opened inside it: that one, as it closes, skips this one.
                return;
            }
            Guard outer = this.outer;
            while (outer != null && !outer.isOpen) {
                outer = outer.outer;
            }
            if (outer != null) {
                open.set(outer);
            }
            else {
                open.remove();
            }
        }

        void register() {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

                @Override
                public void beforeCommit(boolean readOnly) {
                    if (!readOnly) {
                        advance();
                    }
                }

            });
            this.checked = true;
        }

        private boolean expired() {
            return this.isOpen && this.expired.getAsBoolean();
        }

        /** In the committing transaction, before its commit: advances each fence, or throws to roll it back. */
        private void advance() {
            DataSource dataSource = TransactionGuards.this.dataSource;
            if (TransactionSynchronizationManager.getResource(dataSource) == null) {
                throw new IllegalStateException(this.owner + " runs in a transaction that is not one of the DataSource of "
                        + "the fences (" + dataSource + "), so the fence of '" + String.join(",", this.resources) + "' cannot "
                        + "be checked in it; it was rolled back. Run it in a transaction of that DataSource, or give the "
                        + "JdbcFence bean the DataSource it writes to.");
            }
            long token = this.token.getAsLong();
            for (String resource : this.resources) {
                try {
                    TransactionGuards.this.fence.advance(resource, token);
                }
                catch (StaleFencingTokenException ex) {
                    throw expired() ? new StaleFencingTokenException(resource, token, ex.getFence(), true) : ex;
                }
                if (expired()) {
                    // No later holder wrote yet, but one may hold the lock now and read: this commit must not land either.
                    throw new StaleFencingTokenException(resource, token, token, true);
                }
            }
        }

    }

}
