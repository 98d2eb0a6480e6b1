package io.github.redlock.core;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.redlock.core.observation.DefaultRedlockObservationConvention;
import io.github.redlock.core.observation.RedlockObservationContext;
import io.github.redlock.core.observation.RedlockObservationContext.Operation;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes acquisitions, releases and extensions as Micrometer {@link Observation}s. The only class of the lock
 * that touches Micrometer, which is optional: it is created only when the application gave an
 * {@link ObservationRegistry}, and the rest of the lock holds it as a possibly null field. Each observation
 * starts on the thread that asked for the operation (so that the caller's current observation is its parent)
 * and stops when the operation is decided, on whichever thread decided it.
 * <p>
 * The registry's handlers and the convention are the application's callbacks: a failure of theirs is logged
 * (at most once a minute) and never reaches the lock, which goes on without that observation.
 */
final class LockObservations {

    private static final System.Logger logger = System.getLogger(LockObservations.class.getName());

    private static final RedlockObservationConvention DEFAULT_CONVENTION = new DefaultRedlockObservationConvention();

    /** Each lock type's mode, as the context names it, by ordinal. */
    private static final String[] MODES = java.util.Arrays.stream(LockType.values()).map((type) -> type.name().toLowerCase(Locale.ROOT))
            .toArray(String[]::new);

    private final ObservationRegistry registry;

    /** The application's convention, or null for the registry's global one or the default. */
    private final RedlockObservationConvention convention;

    private final int quorum;

    private final OncePerMinute failures = new OncePerMinute(logger);

    LockObservations(ObservationRegistry registry, RedlockObservationConvention convention, int quorum) {
        this.registry = registry;
        this.convention = convention;
        this.quorum = quorum;
    }

    /**
     * Observes an acquisition: starts here, then starts it, and stops when it is decided (a lease, a failure
     * after the wait, a cancellation or an error).
     */
    CompletableFuture<Attempt> acquire(LockType type, String key, long ttlMillis, Supplier<CompletableFuture<Attempt>> acquisition) {
        Started started = start(Operation.ACQUIRE, type, key, ttlMillis, false);
        CompletableFuture<Attempt> attempt;
        try {
            attempt = acquisition.get();
        }
        catch (RuntimeException ex) {
            stop(started, (context) -> context.setOutcome("error"), ex);
            throw ex;
        }
        if (started != null) {
            attempt.whenComplete((done, failure) -> stop(started, (context) -> acquired(context, done, failure), failure(failure)));
        }
        return attempt;
    }

    /**
     * Starts observing a release; {@link #released} stops it.
     * @return the observation under way, or null when it could not be started
     */
    Started releasing(LeaseHandle lease) {
        return start(Operation.RELEASE, lease.type(), lease.name(), lease.ttlMillis(), false);
    }

    /** Stops a release's observation with its outcome. */
    void released(Started started, QuorumCall call, Boolean released, Throwable failure) {
        stop(started, (context) -> {
            context.setOutcome(Boolean.TRUE.equals(released) ? "released" : "not-held");
            if (call != null) {
                answered(context, call);
            }
        }, failure(failure));
    }

    /**
     * Starts observing an extension; {@link #extended} stops it.
     * @return the observation under way, or null when it could not be started
     */
    Started extending(LeaseHandle lease, long ttlMillis, boolean automatic) {
        return start(Operation.EXTEND, lease.type(), lease.name(), ttlMillis, automatic);
    }

    /** Stops an extension's observation with its outcome. */
    void extended(Started started, QuorumCall call, ExtendOutcome outcome, Throwable failure) {
        stop(started, (context) -> {
            context.setOutcome((outcome == null) ? "error" : switch (outcome) {
                case EXTENDED -> "extended";
                case REFUSED -> "refused";
                case NOT_EXTENDED -> "failed";
            });
            if (call != null) {
                answered(context, call);
            }
        }, failure(failure));
    }

    private Started start(Operation operation, LockType type, String key, long ttlMillis, boolean automatic) {
        try {
            RedlockObservationContext context = new RedlockObservationContext(operation, key, MODES[type.ordinal()], Duration.ofMillis(ttlMillis),
                    automatic);
            context.setQuorum(this.quorum);
            Observation observation = Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry);
            return new Started(observation.start(), context);
        }
        catch (RuntimeException ex) {
            failed(ex);
            return null;
        }
    }

    private void stop(Started started, Consumer<RedlockObservationContext> outcome, Throwable failure) {
        if (started == null) {
            return;
        }
        try {
            outcome.accept(started.context());
            if (failure != null) {
                started.observation().error(failure);
            }
            started.observation().stop();
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private static void acquired(RedlockObservationContext context, Attempt attempt, Throwable failure) {
        if (failure != null) {
            context.setOutcome((unwrap(failure) instanceof CancellationException) ? "cancelled" : "error");
            return;
        }
        context.setAttempts(attempt.attempts());
        RedlockLease lease = attempt.lease();
        if (lease != null) {
            context.setOutcome("acquired");
            context.setFencingToken(lease.handle().fencingToken());
            answered(context, lease.handle().acquisition());
        }
        else {
            context.setOutcome("failed");
            if (attempt.call() != null) {
                answered(context, attempt.call());
            }
        }
    }

    private static void answered(RedlockObservationContext context, QuorumCall call) {
        context.setNodes(call.answers());
        context.setAgreed(call.granted());
    }

    /** The failure to record as the observation's error: none for a caller's cancellation, which is no error. */
    private static Throwable failure(Throwable failure) {
        Throwable cause = unwrap(failure);
        return (cause instanceof CancellationException) ? null : cause;
    }

    private static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

    private void failed(RuntimeException ex) {
        this.failures.warn(() -> "An observation handler or convention of the ObservationRegistry threw; the lock goes on without "
                + "that observation (failures are logged at most once a minute)", ex);
    }

    /** An observation under way and its context. */
    record Started(Observation observation, RedlockObservationContext context) {
    }

}
