package io.github.redlock.sample.web;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.fencing.StaleFencingTokenException;
import io.github.redlock.sample.ledger.Balance;
import io.github.redlock.sample.ledger.Ledger;

import org.springframework.stereotype.Component;

/**
 * Shows, on one new account, what the fencing token is for, in one request:
 * <ol>
 * <li>holder A takes the account's lock (ttl 300 ms, not extended), reads the balance, and pauses before
 * writing, as a long GC pause would;</li>
 * <li>holder B asks for the same lock, gets it once A's lease has expired, and deposits: its transaction advances
 * the account's fence to its token, which is larger, and commits;</li>
 * <li>A wakes and writes the balance it computed from its stale read: its fenced transaction's commit is refused
 * ({@code StaleFencingTokenException}) and rolled back, so B's deposit is not lost.</li>
 * </ol>
 * The steps are ordered by the lock and by latches, not by timing: A pauses until B has written, and B can only
 * take the lock once A's lease has expired. Every wait is bounded ({@value #STEP_TIMEOUT_SECONDS} s per step,
 * B's wait for the lock 2 s), so a run cannot hang.
 */
@Component
public class FencingDemo {

    /** The longest wait of one step of a run, in seconds. */
    static final long STEP_TIMEOUT_SECONDS = 10;

    /** The balance of each demo account when opened, in cents. */
    static final long OPENING_CENTS = 10_000;

    /** What holder A deposits, computed from its stale read. */
    static final long A_DEPOSIT_CENTS = 100;

    /** What holder B deposits. */
    static final long B_DEPOSIT_CENTS = 50;

    private final AtomicInteger runs = new AtomicInteger();

    private final Ledger ledger;

    FencingDemo(Ledger ledger) {
        this.ledger = ledger;
    }

    /**
     * Runs the scenario on a new account.
     * @return the two writes, as the database took them, and the account's final balance
     * @throws io.github.redlock.core.RedlockAcquisitionException if a holder could not take the lock in time
     * @throws IllegalStateException if a step did not finish within {@value #STEP_TIMEOUT_SECONDS} s
     * @throws InterruptedException if the calling thread was interrupted
     */
    public Report run() throws InterruptedException {
        String account = "fencing-demo-" + this.runs.incrementAndGet();
        this.ledger.open(account, OPENING_CENTS);
        CompletableFuture<Void> aHoldsTheLock = new CompletableFuture<>();
        CountDownLatch bWrote = new CountDownLatch(1);
        AtomicReference<Pause> pause = new AtomicReference<>();
        ExecutorService holderA = Executors.newSingleThreadExecutor((task) -> new Thread(task, "fencing-demo-holder-a"));
        try {
            // A's change as it computed it; its commit is refused, so change() throws instead of returning it.
            AtomicReference<Ledger.Write> aChange = new AtomicReference<>();
            CompletableFuture<Ledger.Write> a = CompletableFuture.supplyAsync(() -> {
                try {
                    return this.ledger.change(account, (read) -> {
                        RedlockLease lease = RedlockContext.currentLease().orElseThrow();
                        long leaseLeftMillis = lease.remainingValidity().toMillis();
                        long start = System.nanoTime();
                        aHoldsTheLock.complete(null);
                        pauseUntil(bWrote); // a long GC pause: A's lease expires meanwhile, and B takes the lock and writes
                        pause.set(new Pause(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), leaseLeftMillis,
                                lease.isValid()));
                        aChange.set(new Ledger.Write(lease.fencingToken(), read, read + A_DEPOSIT_CENTS, false));
                        return read + A_DEPOSIT_CENTS;
                    });
                }
                catch (StaleFencingTokenException ex) {
                    return aChange.get(); // refused at its commit, and rolled back
                }
            }, holderA);
            await(CompletableFuture.anyOf(aHoldsTheLock, a), "holder A to take the lock and read the balance");
            Ledger.Write b;
            try {
                b = this.ledger.change(account, (read) -> read + B_DEPOSIT_CENTS); // waits for the lock, up to 2 s
            }
            finally {
                bWrote.countDown(); // wakes A in any case
            }
            Ledger.Write aWrite = await(a, "holder A to wake and write");
            Balance balance = this.ledger.balance(account)
                    .orElseThrow(() -> new IllegalStateException("The demo account '" + account + "' disappeared"));
            return new Report(account, Ledger.TTL_MILLIS, pause.get(), aWrite, b, balance, outcome(aWrite, b, balance));
        }
        finally {
            holderA.shutdownNow();
        }
    }

    /** Holder A's pause, which lasts until B has written (or a step's timeout, if B never gets that far). */
    private static void pauseUntil(CountDownLatch bWrote) {
        try {
            if (!bWrote.await(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Holder B did not finish within " + STEP_TIMEOUT_SECONDS + " s");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Holder A was interrupted during its pause", ex);
        }
    }

    private static <T> T await(CompletableFuture<T> step, String what) throws InterruptedException {
        try {
            return step.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("Waited " + STEP_TIMEOUT_SECONDS + " s for " + what + "; gave up", ex);
        }
        catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException failure) {
                throw failure; // e.g. RedlockAcquisitionException, which the controller answers with 409
            }
            throw new IllegalStateException("Failed waiting for " + what + ": " + ex.getCause(), ex.getCause());
        }
    }

    private static String outcome(Ledger.Write a, Ledger.Write b, Balance balance) {
        if (b.accepted() && !a.accepted()) {
            return "B's change with token " + b.token() + " was committed; A woke after its lease had expired, and the "
                    + "commit of its change with the stale token " + a.token() + " was refused (StaleFencingTokenException) "
                    + "and rolled back, so B's deposit is kept (without the fence, A would have written " + a.wrote()
                    + " over " + b.wrote() + ")";
        }
        return "Unexpected: A's write (token " + a.token() + ") was " + (a.accepted() ? "accepted" : "refused") + ", B's (token "
                + b.token() + ") was " + (b.accepted() ? "accepted" : "refused") + "; the balance is " + balance.amount()
                + " with fence " + balance.fence();
    }

    /**
     * What one run did.
     *
     * @param account the demo's new account, opened with 10,000 cents
     * @param ttlMillis the ttl of the account lock
     * @param pause A's pause between its read and its write
     * @param holderA A's write: a deposit of 100 computed from its read before the pause, with the smaller token
     * @param holderB B's write: a deposit of 50, with the larger token
     * @param balance the account after both writes: B's balance and B's token when the database refused A's write
     * @param outcome what happened, in words
     */
    public record Report(String account, long ttlMillis, Pause pause, Ledger.Write holderA, Ledger.Write holderB,
            Balance balance, String outcome) {
    }

    /**
     * Holder A's pause, between its read and its write.
     *
     * @param millis how long it lasted
     * @param leaseLeftMillis the validity A's lease had left as the pause began
     * @param leaseValidAfter whether A's lease was still valid as the pause ended: never, since B took the lock
     */
    public record Pause(long millis, long leaseLeftMillis, boolean leaseValidAfter) {
    }

}
