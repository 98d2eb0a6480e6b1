package io.github.redlock.core.internal.lease;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redlock.core.RedlockLease;
import io.github.redlock.core.internal.node.QuorumCall;
import io.github.redlock.core.internal.script.LockType;
import io.github.redlock.core.internal.support.OncePerMinute;
import io.github.redlock.core.observation.DefaultRedlockObservationConvention;
import io.github.redlock.core.observation.RedlockObservationContext;
import io.github.redlock.core.observation.RedlockObservationContext.Operation;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

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
public final class LockObservations {

    private static final System.Logger logger = System.getLogger(LockObservations.class.getName());

    private static final RedlockObservationConvention DEFAULT_CONVENTION = new DefaultRedlockObservationConvention();

    /** Each lock type's mode, as the context names it, by ordinal. */
    private static final String[] MODES = Arrays.stream(LockType.values()).map((type) -> type.name().toLowerCase(Locale.ROOT))
            .toArray(String[]::new);

    private final ObservationRegistry registry;

    /** The application's convention, or null for the registry's global one or the default. */
    private final @Nullable RedlockObservationConvention convention;

    private final int quorum;

    private final OncePerMinute failures = new OncePerMinute(logger);

    public LockObservations(ObservationRegistry registry, @Nullable RedlockObservationConvention convention, int quorum) {
        this.registry = registry;
        this.convention = (convention != null) ? new GuardedConvention(convention, this.failures) : null;
        this.quorum = quorum;
    }

    /**
     * Observes an acquisition: starts here, then starts it, and stops when it is decided (a lease, a failure
     * after the wait, a cancellation or an error).
     */
    public CompletableFuture<Attempt> acquire(LockType type, String key, long ttlMillis, Supplier<CompletableFuture<Attempt>> acquisition,
            Function<Attempt, CompletableFuture<@Nullable String>> holderOf) {
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
            attempt.whenComplete((done, failure) -> {
                if (failure == null && done.lease() == null && done.call() != null) {
                    // Refused: the observation ends once the holder was read again (never failing, bounded by the call's
                    // bound), so that it names who holds the lock; the caller has its answer already.
                    holderOf(holderOf, done).thenAccept((holder) -> stop(started, (context) -> {
                        acquired(context, done, null);
                        context.setHolder(holder);
                    }, null));
                }
                else {
                    stop(started, (context) -> acquired(context, done, failure), failure(failure));
                }
            });
        }
        return attempt;
    }

    private static CompletableFuture<@Nullable String> holderOf(Function<Attempt, CompletableFuture<@Nullable String>> holderOf,
            Attempt attempt) {
        try {
            return holderOf.apply(attempt).exceptionally((failure) -> null);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Starts observing a release; {@link #released} stops it.
     * @return the observation under way, or null when it could not be started
     */
    @Nullable Started releasing(LeaseHandle lease) {
        return start(Operation.RELEASE, lease.type(), lease.name(), lease.ttlMillis(), false);
    }

    /** Stops a release's observation with its outcome. */
    void released(@Nullable Started started, @Nullable QuorumCall call, @Nullable Boolean released, @Nullable Throwable failure) {
        stop(started, (context) -> {
            context.setOutcome((released == null) ? outcome(failure) : released ? "released" : "not-held");
            if (call != null) {
                answered(context, call);
            }
        }, failure(failure));
    }

    /**
     * Starts observing an extension; {@link #extended} stops it.
     * @return the observation under way, or null when it could not be started
     */
    @Nullable Started extending(LeaseHandle lease, long ttlMillis, Extension by) {
        return start(Operation.EXTEND, lease.type(), lease.name(), ttlMillis, by == Extension.AUTOMATIC);
    }

    /** Stops an extension's observation with its outcome. */
    void extended(@Nullable Started started, @Nullable QuorumCall call, @Nullable ExtendOutcome outcome, @Nullable Throwable failure) {
        stop(started, (context) -> {
            context.setOutcome((outcome == null) ? outcome(failure) : switch (outcome) {
                case EXTENDED -> "extended";
                case REFUSED -> "refused";
                case NOT_EXTENDED -> "failed";
            });
            if (call != null) {
                answered(context, call);
            }
        }, failure(failure));
    }

    private @Nullable Started start(Operation operation, LockType type, String key, long ttlMillis, boolean automatic) {
        Observation observation = null;
        try {
            RedlockObservationContext context = new RedlockObservationContext(operation, key, MODES[type.ordinal()], Duration.ofMillis(ttlMillis),
                    automatic);
            context.setQuorum(this.quorum);
            observation = Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry);
            if (observation.isNoop()) {
                return null; // switched off (e.g. management.observations.enable.redlock=false): nothing to fill in
            }
            return new Started(observation.start(), context);
        }
        catch (RuntimeException | LinkageError ex) {
            failed(ex);
            if (observation != null) {
                // A handler threw while the observation started: those before it started and must be stopped.
                stopQuietly(observation);
            }
            return null;
        }
    }

    /**
     * Stops an observation, each step on its own so that a step that throws never keeps the next from running:
     * the outcome, the error, then the stop, which must always be reached (handlers hold state until then).
     */
    private void stop(@Nullable Started started, Consumer<RedlockObservationContext> outcome, @Nullable Throwable failure) {
        if (started == null) {
            return;
        }
        try {
            outcome.accept(started.context());
        }
        catch (RuntimeException | LinkageError ex) {
            failed(ex);
        }
        if (failure != null) {
            try {
                started.observation().error(failure);
            }
            catch (RuntimeException | LinkageError ex) {
                failed(ex);
            }
        }
        stopQuietly(started.observation());
    }

    private void stopQuietly(Observation observation) {
        try {
            observation.stop();
        }
        catch (RuntimeException | LinkageError ex) {
            failed(ex);
        }
    }

    private static void acquired(RedlockObservationContext context, Attempt attempt, @Nullable Throwable failure) {
        if (failure != null) {
            context.setOutcome(outcome(failure));
            return;
        }
        context.setAttempts(attempt.attempts());
        RedlockLease lease = attempt.lease();
        if (lease != null) {
            context.setOutcome("acquired");
            LeaseHandle handle = Lease.of(lease).handle();
            context.setFencingToken(handle.fencingToken());
            answered(context, handle.acquisition());
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

    /** The outcome of an operation that ended without a result: cancelled by its caller, or an error. */
    private static String outcome(@Nullable Throwable failure) {
        return (unwrap(failure) instanceof CancellationException) ? "cancelled" : "error";
    }

    /** The failure to record as the observation's error: none for a caller's cancellation, which is no error. */
    private static @Nullable Throwable failure(@Nullable Throwable failure) {
        Throwable cause = unwrap(failure);
        return (cause instanceof CancellationException) ? null : cause;
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

    private void failed(Throwable ex) {
        this.failures.warn(() -> "An observation handler or convention of the ObservationRegistry threw; the lock goes on without "
                + "that observation (failures are logged at most once a minute)", ex);
    }

    /**
     * The application's convention, called so that a failure of its own falls back to the default convention's
     * answer: a convention that throws when an observation stops would otherwise keep every handler from stopping.
     */
    private static final class GuardedConvention implements RedlockObservationConvention {

        private final RedlockObservationConvention delegate;

        private final OncePerMinute failures;

        GuardedConvention(RedlockObservationConvention delegate, OncePerMinute failures) {
            this.delegate = delegate;
            this.failures = failures;
        }

        @Override
        public String getName() {
            return guarded(this.delegate::getName, DEFAULT_CONVENTION::getName);
        }

        @Override
        public String getContextualName(RedlockObservationContext context) {
            return guarded(() -> this.delegate.getContextualName(context), () -> DEFAULT_CONVENTION.getContextualName(context));
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(RedlockObservationContext context) {
            return guarded(() -> this.delegate.getLowCardinalityKeyValues(context), () -> DEFAULT_CONVENTION.getLowCardinalityKeyValues(context));
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(RedlockObservationContext context) {
            return guarded(() -> this.delegate.getHighCardinalityKeyValues(context), () -> DEFAULT_CONVENTION.getHighCardinalityKeyValues(context));
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof RedlockObservationContext;
        }

        private <T> T guarded(Supplier<T> call, Supplier<T> fallback) {
            try {
                return call.get();
            }
            catch (RuntimeException | LinkageError ex) {
                this.failures.warn(() -> "The RedlockObservationConvention " + this.delegate.getClass().getName() + " threw; "
                        + "the default convention's answer is used instead (failures are logged at most once a minute)", ex);
                return fallback.get();
            }
        }

    }

    /** An observation under way and its context. */
    record Started(Observation observation, RedlockObservationContext context) {
    }

}
