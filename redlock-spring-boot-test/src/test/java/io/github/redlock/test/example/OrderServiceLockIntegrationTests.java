package io.github.redlock.test.example;

import java.time.Duration;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodes;
import io.github.redlock.test.context.RedlockNodes;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

// The example of docs/testing.md ("Testing your own code against real nodes"), word for word but for the package: keep both alike.
@SpringBootTest
@RedlockNodes(count = 3)
class OrderServiceLockIntegrationTests {

    @Autowired
    private OrderService orders;       // pay(orderId, cents) is @Redlocked(key = "order:#{#orderId}", ttl = "10s")

    @Autowired
    private Redlock redlock;           // the application's lock, on the three nodes

    @Autowired
    private RedisNodes nodes;          // the nodes, to fault them

    @Test
    void paysWhileOneNodeIsFrozen() {
        this.nodes.node(0).pause();                 // SIGSTOP: counts as "no" after redlock.node-timeout
        assertThat(this.orders.pay("42", 1999)).isTrue();
    }

    @Test
    void refusesToPayWhileAnotherInstanceHoldsTheOrder() {
        RedlockLease other = this.redlock.acquire("order:42", Duration.ofSeconds(10), Duration.ZERO);  // as another instance would
        try {
            assertThatExceptionOfType(RedlockAcquisitionException.class).isThrownBy(() -> this.orders.pay("42", 1999));
        }
        finally {
            other.release();
        }
    }

    @Test
    void refusesToPayWhenAMajorityOfNodesIsDown() {
        this.nodes.node(0).kill();                  // SIGKILL; the next test finds it restarted and empty
        this.nodes.node(2).kill();
        assertThatExceptionOfType(RedlockAcquisitionException.class).isThrownBy(() -> this.orders.pay("43", 1999));
    }

}
