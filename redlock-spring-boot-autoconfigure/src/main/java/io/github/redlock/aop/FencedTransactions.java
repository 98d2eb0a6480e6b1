package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.List;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;
import io.github.redlock.fencing.internal.TransactionGuards;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * The guard of {@code @Redlocked(fenced = true)}: advances the fence of the call's lock names to its lease's fencing
 * token with the {@link JdbcFence}, in the transaction the method runs in, just before that transaction commits, so
 * that the transaction of a holder that paused past its lease while a later holder committed rolls back with a
 * {@link StaleFencingTokenException} instead of writing stale data ({@link TransactionGuards} does the checking).
 * <p>
 * Which transaction: the one active when the call starts, if the method runs in it (its caller's, which it joins, or the
 * method's own when the lock is taken inside it), gets the check at once; and every new transaction begun on the
 * call's thread while the method runs (the method's own, begun inside the lock, and any {@code REQUIRES_NEW} one in
 * it) gets it as it begins. A call whose method would run in no transaction is refused before its lock is taken; one
 * whose method returned without any transaction having got the check (a transaction manager that takes no listeners)
 * fails then, naming why. While the method runs, a commit after its lease ran out is refused too.
 */
final class FencedTransactions {

    private final TransactionGuards guards;

    private final TransactionAttributeSource attributes;

    private FencedTransactions(JdbcFence fence, TransactionAttributeSource attributes) {
        this.guards = new TransactionGuards(fence);
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
        String owner = "@Redlocked(fenced = true) on " + locked.description();
        Object result;
        try (TransactionGuards.Guard guard = this.guards.open(owner, keys, lease::fencingToken, () -> !lease.isValid(),
                inActiveTransaction)) {
            result = body.proceed();
            if (!guard.checked()) {
                throw new IllegalStateException(owner + " returned without any transaction having checked the fence of '"
                        + String.join(",", guard.resources()) + "': it began no transaction on this thread that the fence "
                        + "could join, or its transaction manager takes no TransactionExecutionListener (it is not a "
                        + "ConfigurableTransactionManager). Its writes, if any, were not fenced. Run it in a transaction of a "
                        + "Spring transaction manager of the fence's DataSource.");
            }
        }
        return result;
    }

    /** The method's work, run under the lock. */
    @FunctionalInterface
    interface Body {

        @Nullable Object proceed() throws Throwable;

    }

}
