package io.github.redlock.sample.ledger;

import java.util.Optional;
import java.util.function.LongUnaryOperator;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.Redlocked;

import org.springframework.stereotype.Service;

/**
 * Account balances, changed read-compute-write under a per-account lock. The lock alone cannot stop a holder
 * that pauses (a long GC, a frozen VM) between its read and its write, past the end of its lease, while another
 * holder takes the lock and writes: on waking, the first would write a balance computed from a stale read over
 * the second one's. So every write carries the lease's fencing token, and the database ({@link Balances})
 * refuses a write whose token is not larger than that of the last write it accepted. Needs
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

    /**
     * Creates the ledger.
     * @param balances the accounts' table
     */
    public Ledger(Balances balances) {
        this.balances = balances;
    }

    /**
     * Opens an account.
     * @param accountId the account
     * @param amountCents its first balance
     * @return the new balance, with fence 0
     * @throws org.springframework.dao.DuplicateKeyException if the account exists already
     */
    public Balance open(String accountId, long amountCents) {
        return this.balances.open(accountId, amountCents);
    }

    /**
     * Reads an account's balance, without the lock.
     * @param accountId the account
     * @return the balance and the fence of its last write, or empty if there is no such account
     */
    public Optional<Balance> balance(String accountId) {
        return this.balances.find(accountId);
    }

    /**
     * Changes an account's balance under its lock: reads the balance, computes the new one, and writes it with
     * the lease's fencing token. Waits up to 2 s for a change of the same account that holds the lock.
     * @param accountId the account
     * @param change computes the new balance from the one read; it runs while the lock is held
     * @return the write, accepted or refused: refused when a holder with a larger token wrote after this one's
     * read, which happens only when this holder's lease ended before its write (re-read and try again)
     * @throws IllegalArgumentException if there is no such account
     * @throws io.github.redlock.core.RedlockAcquisitionException if the account stayed locked for the wait time
     */
    @Redlocked(key = "account:#{#accountId}", ttl = TTL_MILLIS + "ms", waitTime = "2s")
    public Write change(String accountId, LongUnaryOperator change) {
        long token = RedlockContext.currentLease()
                .orElseThrow(() -> new IllegalStateException("Ledger.change(" + accountId + ") ran without its lock: "
                        + "call it through the Spring proxy (from another bean), not from the Ledger itself"))
                .fencingToken();
        Balance read = this.balances.find(accountId)
                .orElseThrow(() -> new IllegalArgumentException("No account '" + accountId + "': open it first"));
        long amount = change.applyAsLong(read.amount());
        boolean accepted = this.balances.writeIfNewer(accountId, amount, token);
        return new Write(token, read.amount(), amount, accepted);
    }

    /**
     * One change of a balance, as the database took it.
     *
     * @param token the fencing token the write carried
     * @param read the balance read under the lock
     * @param wrote the balance written, or that the database refused
     * @param accepted whether the database applied the write
     */
    public record Write(long token, long read, long wrote, boolean accepted) {
    }

}
