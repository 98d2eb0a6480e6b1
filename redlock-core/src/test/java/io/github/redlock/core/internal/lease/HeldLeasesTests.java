package io.github.redlock.core.internal.lease;

import java.util.concurrent.TimeUnit;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.TestLeases;
import io.github.redlock.core.internal.engine.FakeEngine;
import io.github.redlock.core.internal.script.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link HeldLeases}: the leases of one lock not yet released, the valid exclusive lease of each key that a caller
 * of this JVM may wait behind, and the loss of every held lease when the lock closes.
 */
class HeldLeasesTests {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private final FakeEngine operations = new FakeEngine();

    private final HeldLeases held = new HeldLeases();

    @Test
    void aValidExclusiveLeaseIsTheHolderOfItsKey() {
        RedlockLease lease = TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", HOUR);
        this.held.add(lease);
        assertThat(this.held.holderOf("job")).isSameAs(lease);
        assertThat(this.held.holderOf("other")).isNull();
        assertThat(this.held.snapshot()).containsExactly(lease);
    }

    @Test
    void aReleasedLeaseHoldsNothing() {
        RedlockLease lease = TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", HOUR);
        this.held.add(lease);
        lease.releaseAsync();
        assertThat(this.held.holderOf("job")).isNull();
    }

    @Test
    void anExpiredLeaseHoldsNothing() {
        this.held.add(TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", -1));
        assertThat(this.held.holderOf("job")).isNull();
    }

    @Test
    void aReadOrWriteLeaseIsNoExclusiveHolder() {
        this.held.add(TestLeases.lease(this.operations, LockType.WRITE, "job", HOUR));
        this.held.add(TestLeases.lease(this.operations, LockType.READ, "job", HOUR));
        assertThat(this.held.holderOf("job")).isNull();
        assertThat(this.held.snapshot()).hasSize(2);
    }

    @Test
    void removingAnOlderLeaseKeepsTheNewerHolder() {
        RedlockLease older = TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", HOUR);
        RedlockLease newer = TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", HOUR);
        this.held.add(older);
        this.held.add(newer);
        this.held.remove(Lease.of(older).handle());
        assertThat(this.held.holderOf("job")).isSameAs(newer);
        this.held.remove(Lease.of(newer).handle());
        assertThat(this.held.holderOf("job")).isNull();
        assertThat(this.held.snapshot()).isEmpty();
    }

    @Test
    void closingLosesEveryLeaseStillHeld() {
        RedlockLease lease = TestLeases.lease(this.operations, LockType.EXCLUSIVE, "job", HOUR);
        this.held.add(lease);
        this.held.close();
        assertThat(this.held.isClosed()).isTrue();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.lostReason()).hasValue("its Redlock was closed while it was held: nothing extends it any more, and its keys "
                + "expire with their ttl");
        assertThat(this.held.holderOf("job")).isNull();
    }

}
