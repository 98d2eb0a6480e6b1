package io.github.redlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method only while holding a Redlock over the configured Redis masters, so that one caller at a
 * time, across every instance of the application, runs it for a given key.
 *
 * <pre>{@code
 * @Redlocked(key = "order:#{#order.id}", ttl = "10s", waitTime = "2s")
 * public Receipt pay(Order order) { … }
 *
 * @Scheduled(cron = "0 0 2 * * *")
 * @Redlocked(key = "nightly-settlement", ttl = "30s", autoExtend = true, maxHold = "1h", onFailure = OnFailure.SKIP)
 * public void settle() { … }
 * }</pre>
 *
 * The lock is released when the method returns or throws; for a method returning a
 * {@code CompletionStage}, a Reactor {@code Mono} or {@code Flux} (or another reactive type that Spring's
 * {@code ReactiveAdapterRegistry} adapts, such as a plain {@code Publisher}), when the asynchronous result completes
 * (a reactive result acquires it when subscribed). Nested calls on the same thread for the
 * same key are re-entrant (a write lock also covers nested reads; a read lock cannot be upgraded to a
 * write lock, which is an error); a nested call that returns an asynchronous result holds the lock until
 * that result completes, even after the outer call returned. The method must be called through the Spring
 * proxy (not from its own class).
 * <p>
 * A Kotlin {@code suspend fun} holds the lock from the call until its coroutine completes, fails or is cancelled;
 * cancelling the calling coroutine releases it as soon as the body's coroutine has ended (a cancel only asks it to
 * stop: its {@code finally} blocks, and blocking work it waits for in {@code withContext}, still run under the lock),
 * and at once when the body has not started yet. The coroutine, not the threads it runs on, owns the lock:
 * nested annotated calls in it re-enter it across suspension points and dispatcher switches, and another coroutine
 * on the same thread does not. A {@code Flow} result is locked from its collection to its completion, as a
 * {@code Flux} is. A skipped call returns {@code null} (an empty {@code Flow}); {@code THROW} throws the
 * {@code RedlockAcquisitionException} a Java caller gets. This needs kotlinx-coroutines-reactor and Kotlin reflection
 * on the classpath, as Spring's AOP of suspend functions does; without them a suspend function is refused at start-up.
 * <pre>{@code
 * @Redlocked(key = "order:#{#id}", ttl = "10s", waitTime = "2s")
 * suspend fun pay(id: String): Receipt { … }
 * }</pre>
 * <p>
 * Cancelling an asynchronous result releases the lock at once. For a {@code Mono} or {@code Flux} the
 * cancel travels upstream, so the method's work is told to stop; a cancel during the acquisition means the
 * method is not called, and a lock granted in that moment is released on arrival. A
 * {@code CompletableFuture}'s {@code cancel()} neither stops nor interrupts the work that was to complete
 * it, and that work's end cannot be observed: the lock is released at once all the same, as the cancel is
 * the caller's signal that the work is to stop. <strong>Work that goes on after its future was cancelled
 * is no longer protected by the lock</strong>; stop it (check {@code isCancelled()}, cancel what it
 * started), or return a {@code Mono}, whose cancel reaches the work.
 * With {@code @Transactional} on the same method, the lock is held around the transaction: taken before it
 * begins, released after it has committed or rolled back (see {@code redlock.aspect-order}).
 * <p>
 * For work of unknown length, {@code autoExtend = true} keeps extending the lock while the method runs, up to
 * {@code maxHold}:
 * <pre>{@code
 * @Redlocked(key = "rebuild:#{#catalog}", ttl = "30s", autoExtend = true, maxHold = "2h", interruptOnLoss = true)
 * public void rebuild(String catalog) { … }
 *
 * @Redlocked(key = "prices", mode = LockMode.READ)
 * public Price price(String sku) { … }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Redlocked {

    /**
     * The lock's key: literal text with {@code #{…}} SpEL parts evaluated against the method's arguments (by
     * name, or {@code #p0} / {@code #a0}), {@code #root.method}, {@code #root.target} and beans
     * ({@code @name}); {@code ${…}} placeholders are resolved first. A part that evaluates to null, or an
     * empty key, is an error and the method does not run. The template as written also names the lock in
     * metrics.
     * @return the key template, e.g. {@code "order:#{#order.id}"}; empty when {@link #keys()} names the keys
     */
    String key() default "";

    /**
     * The keys of a lock on several keys at once, each a template as {@link #key()} is, instead of {@code key}:
     * the method runs while it holds all of them, taken together on each node so that no node holds part of the
     * set and two calls whose sets overlap never wait for each other in a circle (see
     * {@code Redlock.tryAcquire(List, Duration, Duration)}). Keys that evaluate to the same text count once. Only
     * for {@link LockMode#EXCLUSIVE}. A nested call on one of the keys, or on the same set, re-enters the lock; a
     * nested call whose set adds keys to one this thread holds is refused (it would wait for this thread). The
     * templates as written, joined by commas, name the lock in metrics.
     * <pre>{@code
     * @Redlocked(keys = { "acct:#{#from}", "acct:#{#to}" }, ttl = "10s", waitTime = "2s")
     * public void transfer(String from, String to, long cents) { … }
     * }</pre>
     * @return the key templates; empty when {@link #key()} names the one key
     */
    String[] keys() default {};

    /**
     * How long the nodes keep the lock, in Spring Boot's duration format ({@code 500ms}, {@code 10s},
     * {@code PT10S}); placeholders allowed. Empty for {@code redlock.default-ttl}.
     * @return the time to live
     */
    String ttl() default "";

    /**
     * How long to keep trying to acquire the lock, in the same format; {@code 0s} for a single attempt.
     * Empty for {@code redlock.default-wait-time}.
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * What to do when the lock could not be acquired within the wait time.
     * @return {@link OnFailure#THROW} (the default) or {@link OnFailure#SKIP}
     */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * Which lock to take: the exclusive lock (the default), or the read or the write lock of the key's
     * read-write lock, which is separate from the exclusive one.
     * @return the lock mode
     */
    LockMode mode() default LockMode.EXCLUSIVE;

    /**
     * Whether to keep extending the lock while the method runs: each time half of the ttl remains, the lock
     * is extended by the ttl, until {@link #maxHold()} after the acquisition. If an extension fails, the
     * lock is lost: {@code redlock.lost} is counted, an error is logged and, with {@link #interruptOnLoss()},
     * the method's thread is interrupted. Extension stops when the lock is released: the method returned or
     * threw, or its asynchronous result completed or was cancelled.
     * @return whether to extend automatically
     */
    boolean autoExtend() default false;

    /**
     * With {@link #autoExtend()}: how long after the acquisition extension stops, in Spring Boot's duration
     * format; placeholders allowed. Empty for {@code redlock.default-max-hold}. Set only with
     * {@code autoExtend = true}.
     * @return the maximum hold time
     */
    String maxHold() default "";

    /**
     * Whether to interrupt the thread running the method when its lock is lost before the method returns
     * (an extension failed, or the validity ran out), so that interruptible work stops. For synchronous
     * methods and Kotlin suspend functions that return a value. Default false. The interrupt is for the method
     * alone: none is delivered once the method has returned or thrown (also while a nested asynchronous call still
     * holds the lock), and one that the method left set is cleared as it returns, so that it never reaches the
     * caller; an interrupt the thread had before the loss is kept.
     * <p>
     * For a suspend function, the loss cancels the coroutine that runs its body, with a
     * {@code CancellationException} caused by an {@code IllegalStateException} that names the lock and why it was
     * lost; the call then throws that cancellation to its caller (as {@code withTimeout} does), whose own
     * {@code Job} is not cancelled unless it lets the exception through.
     * @return whether to interrupt on loss
     */
    boolean interruptOnLoss() default false;

    /**
     * Whether the storage refuses this call's writes once a later holder of the lock wrote: the transaction the method
     * runs in advances the fence of the lock's name (the evaluated key, without {@code redlock.key-prefix}; each key of
     * a lock on several keys) to the lease's fencing token just before it commits, in that transaction, with the
     * application's {@code io.github.redlock.fencing.JdbcFence}. If a later holder advanced the fence already (this
     * call paused past its lease while another took the lock and committed), the commit fails with
     * {@code io.github.redlock.fencing.StaleFencingTokenException} and the whole transaction rolls back; it fails the
     * same way when the lease ran out before the commit while the lock was still this call's to hold. The method's own
     * SQL stays as it is.
     * <pre>{@code
     * @Redlocked(key = "account:#{#id}", ttl = "10s", fenced = true)
     * @Transactional
     * public void deposit(String id, long cents) { … }
     * }</pre>
     * Needs {@code redlock.fencing=true} and a {@code JdbcFence} bean (the auto-configuration makes one for an
     * application with one {@code DataSource}), an exclusive or write lock, and a method whose work is done when it
     * returns (not a reactive, {@code CompletionStage} or Kotlin suspend result: their transactions are not the calling
     * thread's); start-up fails clearly otherwise. The method must run in a Spring-managed transaction on that
     * {@code DataSource}: its own {@code @Transactional}, or its caller's transaction (then the fence is advanced when
     * the caller's transaction commits). A call in none fails before the lock is taken, as the check would protect
     * nothing. Every new transaction the method begins on the calling thread is fenced alike; a read-only one writes
     * nothing and is not. The aspect's order does not matter: the check runs inside the transaction whether the lock is
     * taken around it (the default) or in it.
     * @return whether the transaction the method runs in is fenced
     */
    boolean fenced() default false;

}
