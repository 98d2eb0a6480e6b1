package io.github.redlock.core.internal.support;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.RedlockObserver;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests {@link GuardedObserver}: an application's observer is called with what happened, and its failures never reach
 * the algorithm.
 */
class GuardedObserverTests {

    @Test
    void noObserverStaysNone() {
        assertThat(GuardedObserver.of(null)).isNull();
    }

    @Test
    void aGuardedObserverIsNotWrappedAgain() {
        RedlockObserver guarded = GuardedObserver.of(new RedlockObserver() {
        });
        assertThat(GuardedObserver.of(guarded)).isSameAs(guarded);
    }

    @Test
    void everyCallReachesTheObserver() {
        List<String> calls = new ArrayList<>();
        RedlockObserver observer = GuardedObserver.of(new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                calls.add("nodeCommand " + node + " " + command + " " + outcome + " " + nanos);
            }

            @Override
            public void released(boolean released, long nanos) {
                calls.add("released " + released + " " + nanos);
            }

            @Override
            public void extended(boolean extended, long nanos) {
                calls.add("extended " + extended + " " + nanos);
            }

            @Override
            public void leaseLost(RedlockLease lease, String reason) {
                calls.add("leaseLost " + lease + " " + reason);
            }

        });
        observer.nodeCommand("a:6379", "set", "ok", 5);
        observer.released(true, 6);
        observer.extended(false, 7);
        observer.leaseLost(null, "expired");
        assertThat(calls).containsExactly("nodeCommand a:6379 set ok 5", "released true 6", "extended false 7", "leaseLost null expired");
    }

    @Test
    void theObserversFailuresAreSwallowed() {
        RedlockObserver observer = GuardedObserver.of(new RedlockObserver() {

            @Override
            public void nodeCommand(String node, String command, String outcome, long nanos) {
                throw new IllegalStateException("meter registry closed");
            }

            @Override
            public void released(boolean released, long nanos) {
                throw new IllegalStateException("meter registry closed");
            }

            @Override
            public void extended(boolean extended, long nanos) {
                throw new IllegalStateException("meter registry closed");
            }

            @Override
            public void leaseLost(RedlockLease lease, String reason) {
                throw new IllegalStateException("meter registry closed");
            }

        });
        assertThatNoException().isThrownBy(() -> {
            observer.nodeCommand("a:6379", "set", "ok", 5);
            observer.released(true, 6);
            observer.extended(false, 7);
            observer.leaseLost(null, "expired");
        });
    }

}
