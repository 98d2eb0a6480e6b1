package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.TreeSet;

import javax.sql.DataSource;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * The guard of {@code @Redlocked(fenced = true)}: advances the fence of the call's lock names to its lease's fencing
 * token with the {@link JdbcFence}, in the transaction the method runs in, just before that transaction commits (a
 * {@link TransactionSynchronization#beforeCommit}), so that the transaction of a holder that paused past its lease while
 * a later holder committed rolls back with a {@link StaleFencingTokenException} instead of writing stale data.
 * <p>
 * Which transaction: the one active when the call starts, if the method runs in it (its caller's, which it joins, or the
 * method's own when the lock is taken inside it), gets the check at once. And while the method runs, the call is pending
 * on its thread: every new transaction begun on that thread meanwhile (the method's own, begun inside the lock, and any
 * {@code REQUIRES_NEW} one in it) gets the check as it begins, through the {@link #LISTENER} that
 * {@link #listenerRegistrar()} adds to each transaction manager. A call whose method would run in no transaction is
 * refused before its lock is taken; one whose method returned without any transaction having got the check (a
 * transaction manager that takes no listeners) fails then, naming why.
 * <p>
 * The check refuses, with the lease's state in the exception, a commit while this call still holds the lock but its
 * lease ran out (another caller may hold the lock and read), and any commit whose token is below the fence.
 */
final class FencedTransactions {

    /** The innermost fenced call on this thread whose method runs with no transaction yet, or null. */
    private static final ThreadLocal<@Nullable Guard> pending = new ThreadLocal<>();

    /** Gives each transaction begun on a thread with a pending fenced call the check of that call. */
    static final TransactionExecutionListener LISTENER = new TransactionExecutionListener() {

        @Override
        public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
            Guard guard = pending.get();
            if (guard != null && beginFailure == null && transaction.isNewTransaction()
                    && TransactionSynchronizationManager.isSynchronizationActive()) {
                guard.register();
            }
        }

    };

    private final JdbcFence fence;

    private final DataSource dataSource;

    private final TransactionAttributeSource attributes;

    private FencedTransactions(JdbcFence fence, TransactionAttributeSource attributes) {
        this.fence = fence;
        this.dataSource = fence.getDataSource();
        this.attributes = attributes;
    }

    /**
     * The guard of the application's {@link JdbcFence}.
     * @throws RedlockConfigurationException when it has none, naming the method that needs one
     */
    static FencedTransactions of(BeanFactory beanFactory, LockedMethod locked) {
        check(beanFactory, locked);
        return new FencedTransactions(beanFactory.getBean(JdbcFence.class),
                beanFactory.getBeanProvider(TransactionAttributeSource.class).getIfUnique(AnnotationTransactionAttributeSource::new));
    }

    /**
     * Refuses a fenced method in an application that has no {@link JdbcFence} bean, without creating any bean (at
     * start-up, as the method's bean is created).
     */
    static void check(BeanFactory beanFactory, LockedMethod locked) {
        String[] fences = (beanFactory instanceof ListableBeanFactory listable)
                ? BeanFactoryUtils.beanNamesForTypeIncludingAncestors(listable, JdbcFence.class, true, false) : new String[0];
        if (fences.length != 1) {
            throw new RedlockConfigurationException("@Redlocked(fenced = true) on " + locked.description() + " needs one "
                    + "JdbcFence bean to advance the fence with, and the application has " + fences.length + ".",
                    "Set redlock.fencing=true with spring-jdbc and one DataSource (the auto-configuration then makes the "
                            + "JdbcFence), or declare one @Bean JdbcFence over the DataSource the method's transactions use.",
                    null);
        }
    }

    /**
     * Decides, before its lock is taken, which transaction a call's method runs in, and refuses a call that would run in
     * none: none on the thread and a method that begins none, or one that suspends the caller's ({@code NOT_SUPPORTED},
     * {@code NEVER}, {@code SUPPORTS} without one).
     * @return whether the method runs in the transaction active now (the caller's, which it joins, or its own when the
     * lock is taken inside it); false when it begins its own once the lock is taken
     */
    boolean checkTransaction(LockedMethod locked, Method method, Class<?> targetClass) {
        boolean active = TransactionSynchronizationManager.isActualTransactionActive();
        if (active && ClassUtils.getQualifiedMethodName(method, targetClass).equals(TransactionSynchronizationManager.getCurrentTransactionName())) {
            return true; // the method's own transaction, begun around the lock (the aspect runs inside its interceptor)
        }
        TransactionAttribute attribute = this.attributes.getTransactionAttribute(method, targetClass);
        int propagation = (attribute != null) ? attribute.getPropagationBehavior() : -1;
        switch (propagation) {
            case TransactionDefinition.PROPAGATION_REQUIRES_NEW:
                return false;
            case TransactionDefinition.PROPAGATION_REQUIRED, TransactionDefinition.PROPAGATION_NESTED,
                    TransactionDefinition.PROPAGATION_MANDATORY:
                return active;
            case -1, TransactionDefinition.PROPAGATION_SUPPORTS:
                if (active) {
                    return true;
                }
                break;
            default:
                break;
        }
        throw new IllegalStateException("@Redlocked(fenced = true) on " + locked.description() + " was called in no transaction"
                + ((attribute == null) ? ", and it is not @Transactional" : (active ? ": its @Transactional propagation suspends "
                        + "the caller's" : ", and its @Transactional propagation begins none"))
                + ": the fence is advanced in the transaction the method runs in, so there would be nothing to protect its "
                + "writes. Annotate it with @Transactional, or call it in a transaction; the method did not run.");
    }

    /**
     * Runs the method with the check of its lease on the transaction it runs in, and on each that it begins.
     * @param keys the call's evaluated keys: the resources whose fences are advanced
     * @param inActiveTransaction what {@link #checkTransaction} answered
     */
    @Nullable Object proceed(LockedMethod locked, List<String> keys, RedlockLease lease, boolean inActiveTransaction, Body body)
            throws Throwable {
        Guard guard = new Guard(locked, List.copyOf(new TreeSet<>(keys)), lease);
        Guard outer = pending.get();
        try {
            if (inActiveTransaction && TransactionSynchronizationManager.isSynchronizationActive()) {
                guard.register();
            }
            pending.set(guard); // transactions begun by the method get the check as they begin
            Object result = body.proceed();
            if (!guard.registered) {
                throw new IllegalStateException("@Redlocked(fenced = true) on " + locked.description() + " returned without "
                        + "any transaction having checked the fence of '" + String.join(",", guard.resources) + "': it began "
                        + "no transaction on this thread that the fence could join, or its transaction manager takes no "
                        + "TransactionExecutionListener (it is not a ConfigurableTransactionManager). Its writes, if any, "
                        + "were not fenced. Run it in a transaction of a Spring transaction manager of the fence's DataSource.");
            }
            return result;
        }
        finally {
            if (outer != null) {
                pending.set(outer);
            }
            else {
                pending.remove();
            }
            guard.held = false; // from here on the lock may be released before a commit: its validity says nothing then
        }
    }

    /**
     * Returns a post-processor that adds the {@link #LISTENER} to every transaction manager that takes listeners, so
     * that a transaction a fenced method begins gets its check.
     * @return the post-processor
     */
    static BeanPostProcessor listenerRegistrar() {
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

    /** The method's work, run under the lock. */
    @FunctionalInterface
    interface Body {

        @Nullable Object proceed() throws Throwable;

    }

    /** One fenced call: its resources and lease, and the transactions that check them. */
    private final class Guard {

        private final LockedMethod locked;

        private final List<String> resources;

        private final RedlockLease lease;

        /** Whether the call still runs its method, under its own hold of the lock. */
        private volatile boolean held = true;

        /** Whether a transaction got the check; read on the call's thread only. */
        private boolean registered;

        Guard(LockedMethod locked, List<String> resources, RedlockLease lease) {
            this.locked = locked;
            this.resources = resources;
            this.lease = lease;
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
            this.registered = true;
        }

        /** Whether the lease ran out while this call still held the lock (after, a released lease is not valid either). */
        private boolean expired() {
            return this.held && !this.lease.isValid();
        }

        /** In the committing transaction, before its commit: advances each fence, or throws to roll it back. */
        private void advance() {
            if (TransactionSynchronizationManager.getResource(FencedTransactions.this.dataSource) == null) {
                throw new IllegalStateException("@Redlocked(fenced = true) on " + this.locked.description() + " runs in a "
                        + "transaction that is not one of the DataSource of the fences (" + FencedTransactions.this.dataSource
                        + "), so the fence of '" + String.join(",", this.resources) + "' cannot be checked in it; it was rolled "
                        + "back. Run the method in a transaction of that DataSource, or give the JdbcFence bean the "
                        + "DataSource the method writes to.");
            }
            long token = this.lease.fencingToken();
            for (String resource : this.resources) {
                try {
                    FencedTransactions.this.fence.advance(resource, token);
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
