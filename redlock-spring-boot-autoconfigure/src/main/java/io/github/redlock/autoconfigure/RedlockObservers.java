package io.github.redlock.autoconfigure;

import java.util.List;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import org.jspecify.annotations.Nullable;

/**
 * Every {@link RedlockObserver} of the application (the meters, the lost-lease events, the application's own)
 * as the one observer a {@code Redlock} takes. The lock guards the whole: each is called in order, and one
 * that throws is caught here so that the others still hear of it.
 */
final class RedlockObservers implements RedlockObserver {

    private final List<RedlockObserver> observers;

    private RedlockObservers(List<RedlockObserver> observers) {
        this.observers = observers;
    }

    /** The one observer for these: null for none, the observer itself for one. */
    static @Nullable RedlockObserver of(List<RedlockObserver> observers) {
        return switch (observers.size()) {
            case 0 -> null;
            case 1 -> observers.get(0);
            default -> new RedlockObservers(List.copyOf(observers));
        };
    }

    @Override
    public void nodeCommand(String node, String command, String outcome, long nanos) {
        each((observer) -> observer.nodeCommand(node, command, outcome, nanos));
    }

    @Override
    public void released(boolean released, long nanos) {
        each((observer) -> observer.released(released, nanos));
    }

    @Override
    public void extended(boolean extended, long nanos) {
        each((observer) -> observer.extended(extended, nanos));
    }

    @Override
    public void leaseLost(RedlockLease lease, String reason) {
        each((observer) -> observer.leaseLost(lease, reason));
    }

    private void each(java.util.function.Consumer<RedlockObserver> call) {
        RuntimeException first = null;
        for (RedlockObserver observer : this.observers) {
            try {
                call.accept(observer);
            }
            catch (RuntimeException ex) {
                first = (first != null) ? first : ex;
            }
        }
        if (first != null) {
            throw first; // the lock's guard logs it
        }
    }

}
