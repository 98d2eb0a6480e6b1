package io.github.redlock.sample.ledger;

import java.util.Optional;
import java.util.function.LongUnaryOperator;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.Redlocked;
import io.github.redlock.fencing.JdbcFence;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Account balances, changed read-compute-write under a per-account lock. The lock alone cannot stop a holder
 * that pauses (a long GC, a frozen VM) between its read and its write, past the end of its lease, while another
 * holder takes the lock and writes: on waking, the first would write a balance computed from a stale read over
 * the second one's. So {@link #change} is {@code @Redlocked(fenced = true)}: its transaction advances the account's
 * fence to the lease's fencing token as it commits, and a commit whose token is below the fence (a later holder
 * committed first) fails with {@code StaleFencingTokenException} and rolls back. Its SQL is plain. Needs
 * {@code redlock.fencing: true}.
 */
@Service
public class Ledger {

    /**
     * The account lock's ttl in milliseconds: short, as a change takes a few milliseconds (and so that the
     * fencing demo's paused holder outlasts it quickly). Not extended automatically.
     */
    public static final long TTL_MILLIS = 300;

    private final Balances balances;

    private final JdbcFence fence;

    /**
     * Creates the ledger.
     * @param balances the accounts' table
     * @param fence the fences of the accounts' locks, for reading them
     */
    public Ledger(Balances balances, JdbcFence fence) {
        this.balances = balances;
        this.fence = fence;
    }

    /**
     * Opens an account.
     * @param accountId the account
     * @param amountCents its first balance
     * @return the new balance, with fence 0
     * @throws org.springframework.dao.DuplicateKeyException if the account exists already
     */
    public Balance open(String accountId, long amountCents) {
        this.balances.open(accountId, amountCents);
        return new Balance(accountId, amountCents, 0);
    }

    /**
     * Reads an account's balance, without the lock.
     * @param accountId the account
     * @return the balance and the fence of its last change, or empty if there is no such account
     */
    public Optional<Balance> balance(String accountId) {
        return this.balances.amount(accountId)
                .map((amount) -> new Balance(accountId, amount, this.fence.fence("account:" + accountId)));
    }

    /**
     * Changes an account's balance under its lock, in a transaction fenced by the lock: reads the balance, computes the
     * new one, and writes it. Waits up to 2 s for a change of the same account that holds the lock.
     * @param accountId the account
     * @param change computes the new balance from the one read; it runs while the lock is held
     * @return the change, committed
     * @throws io.github.redlock.fencing.StaleFencingTokenException if the commit was refused: a holder with a larger
     * token committed after this one's read, which happens only when this holder's lease ended before its commit
     * (re-read and try again); nothing of this change was written
     * @throws IllegalArgumentException if there is no such account
     * @throws io.github.redlock.core.RedlockAcquisitionException if the account stayed locked for the wait time
     */
    @Redlocked(key = "account:#{#accountId}", ttl = TTL_MILLIS + "ms", waitTime = "2s", fenced = true)
    @Transactional
    public Write change(String accountId, LongUnaryOperator change) {
        long token = RedlockContext.currentLease()
                .orElseThrow(() -> new IllegalStateException("Ledger.change(" + accountId + ") ran without its lock: "
                        + "call it through the Spring proxy (from another bean), not from the Ledger itself"))
                .fencingToken();
        long read = this.balances.amount(accountId)
                .orElseThrow(() -> new IllegalArgumentException("No account '" + accountId + "': open it first"));
        long amount = change.applyAsLong(read);
        this.balances.write(accountId, amount);
        return new Write(token, read, amount, true);
    }

    /**
     * One change of a balance, as the database took it.
     *
     * @param token the fencing token of the change's lease
     * @param read the balance read under the lock
     * @param wrote the balance written, or that the database refused
     * @param accepted whether the database committed the change
     */
    public record Write(long token, long read, long wrote, boolean accepted) {
    }

}
