package io.github.redlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redlock.core.observation.DefaultRedlockObservationConvention;
import io.github.redlock.core.observation.RedlockObservationContext;
import io.github.redlock.core.observation.RedlockObservationContext.Operation;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.core.TestSupport.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisitions, releases and extensions as Micrometer observations on five real nodes: their names, key values
 * and what each node answered, spans that are children of the caller's observation, a convention of the
 * application's, and handlers that throw. {@link TestObservationRegistry} also checks that every observation
 * is started once and stopped once.
 */
class RedlockObservationRegistryIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    /** The contexts of the observations stopped so far, in the order they stopped. */
    private final List<RedlockObservationContext> stopped = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final RedisClientExtension<Redlock> redlock = RedisClientExtension.of(redis,
            (uris) -> TestSupport.patientBuilder().nodes(uris).fencing(true).observationRegistry(this.registry).build());

    @RegisterExtension
    final RedisClientExtension<NodeInspector> inspector = RedisClientExtension.of(redis, NodeInspector::new);

    @BeforeEach
    void collectStoppedObservations() {
        this.registry.observationConfig().observationHandler(new ObservationHandler<RedlockObservationContext>() {

            @Override
            public void onStop(RedlockObservationContext context) {
                RedlockObservationRegistryIntegrationTests.this.stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof RedlockObservationContext;
            }

        });
    }

    @Test
    void anAcquisitionAndItsReleaseAreObservationsWithTheirOutcomeAndWhatEachNodeAnswered() {
        try (RedlockLease lease = this.redlock.get().acquire("order:42", Duration.ofSeconds(10), Duration.ZERO)) {
            RedlockObservationContext acquired = awaitStopped(Operation.ACQUIRE);
            assertThat(acquired.getName()).isEqualTo(DefaultRedlockObservationConvention.NAME);
            assertThat(acquired.getContextualName()).isEqualTo("redlock acquire");
            assertThat(acquired.getLowCardinalityKeyValues()).isEqualTo(KeyValues.of("redlock.operation", "acquire", "redlock.mode", "exclusive",
                    "redlock.outcome", "acquired"));
            assertThat(acquired.getHighCardinalityKeyValue("redlock.key").getValue()).isEqualTo("order:42");
            assertThat(acquired.getHighCardinalityKeyValue("redlock.ttl").getValue()).isEqualTo("10000ms");
            assertThat(acquired.getAgreed()).as("decided once a quorum agreed").isBetween(3, 5);
            assertThat(acquired.getHighCardinalityKeyValue("redlock.quorum").getValue()).isEqualTo("3");
            assertThat(acquired.getHighCardinalityKeyValue("redlock.attempts").getValue()).isEqualTo("1");
            assertThat(acquired.getHighCardinalityKeyValue("redlock.fencing.token").getValue()).isEqualTo(Long.toString(lease.fencingToken()));
            assertThat(acquired.getHighCardinalityKeyValue("redlock.nodes.agreed").getValue()).isEqualTo(Integer.toString(acquired.getAgreed()));
            // Every node in the nodes' order; those that had not answered when a quorum agreed are pending.
            assertThat(acquired.getHighCardinalityKeyValue("redlock.nodes").getValue()).matches(
                    redis.node(0).hostAndPort() + "=(granted|pending), " + redis.node(1).hostAndPort() + "=(granted|pending), "
                            + redis.node(2).hostAndPort() + "=(granted|pending), " + redis.node(3).hostAndPort() + "=(granted|pending), "
                            + redis.node(4).hostAndPort() + "=(granted|pending)");
            assertThat(acquired.getError()).isNull();
        }
        RedlockObservationContext released = awaitStopped(Operation.RELEASE);
        assertThat(released.getContextualName()).isEqualTo("redlock release");
        assertThat(released.getLowCardinalityKeyValue("redlock.outcome").getValue()).isEqualTo("released");
        assertThat(released.getAgreed()).isBetween(3, 5);
        assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redlock.lock", 2);
    }

    @Test
    void aRefusedAcquisitionSaysWhichNodesSaidNo() {
        String holder = "another-client";
        for (int node = 0; node < 3; node++) {
            this.inspector.get().set(node, "redlock:taken", holder, Duration.ofSeconds(30));
        }
        assertThat(this.redlock.get().tryAcquire("taken", Duration.ofSeconds(5))).isEmpty();
        RedlockObservationContext refused = awaitStopped(Operation.ACQUIRE);
        assertThat(refused.getOutcome()).isEqualTo("failed");
        assertThat(refused.getAgreed()).isLessThan(3);
        assertThat(refused.getNodes()).containsEntry(redis.node(0).hostAndPort(), "denied")
                .containsEntry(redis.node(1).hostAndPort(), "denied").containsEntry(redis.node(2).hostAndPort(), "denied");
        assertThat(refused.getError()).as("not acquiring is an outcome, not an error").isNull();
        assertThat(refused.getFencingToken()).isZero();
        assertThat(refused.getHolder()).as("another client's token names no instance").isEqualTo("unknown");
        assertThat(refused.getHighCardinalityKeyValue("redlock.holder").getValue()).isEqualTo("unknown");
    }

    @Test
    void aRefusedAcquisitionNamesTheInstanceThatHoldsTheLock() {
        try (Redlock billing = TestSupport.patientBuilder().nodes(redis.uris()).instanceId("billing@host-1:42").build();
                RedlockLease held = billing.acquire("invoice:7", Duration.ofSeconds(30), Duration.ZERO)) {
            assertThat(this.redlock.get().tryAcquire("invoice:7", Duration.ofSeconds(5))).isEmpty();
            RedlockObservationContext refused = awaitStopped(Operation.ACQUIRE);
            assertThat(refused.getOutcome()).isEqualTo("failed");
            assertThat(refused.getHolder()).isEqualTo("billing@host-1:42");
            assertThat(refused.getHighCardinalityKeyValue("redlock.holder").getValue()).isEqualTo("billing@host-1:42");
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void aWaitThatEndsInTheLockCountsItsAttempts() throws Exception {
        // Held by another client: a holder in the waiter's own Redlock would be waited for without attempts.
        RedlockLease first;
        try (Redlock other = TestSupport.patientBuilder().nodes(redis.uris()).build()) {
            first = other.acquire("busy", Duration.ofSeconds(10), Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> second = this.redlock.get().tryAcquireAsync("busy", Duration.ofSeconds(10),
                    Duration.ofSeconds(10));
            awaitTrue(Duration.ofSeconds(5), () -> this.inspector.get().channels(0).size() == 1); // refused, and waiting for a release
            first.release();
            awaitsTheLockAfterAttempts(second);
        }
    }

    private void awaitsTheLockAfterAttempts(CompletableFuture<Optional<RedlockLease>> second) throws Exception {
        try (RedlockLease lease = second.get().orElseThrow()) {
            awaitTrue(Duration.ofSeconds(5), () -> this.stopped.stream().anyMatch((context) -> context.getOperation() == Operation.ACQUIRE));
            RedlockObservationContext waited = this.stopped.stream().filter((context) -> context.getOperation() == Operation.ACQUIRE)
                    .reduce((a, b) -> b).orElseThrow();
            assertThat(waited.getOutcome()).isEqualTo("acquired");
            assertThat(waited.getAttempts()).isGreaterThan(1);
            assertThat(Long.parseLong(waited.getHighCardinalityKeyValue("redlock.fencing.token").getValue())).isEqualTo(lease.fencingToken());
        }
    }

    @Test
    void aCancelledAcquisitionIsCancelledNotAnError() {
        RedlockLease holder = this.redlock.get().acquire("held", Duration.ofSeconds(10), Duration.ZERO);
        try {
            // The holder's observation may stop after acquire() returned: wait for it, so that the next is the waiter's.
            assertThat(awaitStopped(Operation.ACQUIRE, "held", 1).getOutcome()).isEqualTo("acquired");
            CompletableFuture<Optional<RedlockLease>> waiting = this.redlock.get().tryAcquireAsync("held", Duration.ofSeconds(10),
                    Duration.ofSeconds(30));
            waiting.cancel(false);
            RedlockObservationContext cancelled = awaitStopped(Operation.ACQUIRE, "held", 2);
            assertThat(cancelled.getOutcome()).isEqualTo("cancelled");
            assertThat(cancelled.getError()).isNull();
        }
        finally {
            holder.release();
        }
    }

    @Test
    void manualAndAutomaticExtensionsAreObservedAndToldApart() {
        try (RedlockLease lease = this.redlock.get().acquire("long", Duration.ofMillis(400), Duration.ZERO)) {
            assertThat(lease.extend(Duration.ofMillis(400))).isTrue();
            RedlockObservationContext manual = awaitStopped(Operation.EXTEND);
            assertThat(manual.getOutcome()).isEqualTo("extended");
            assertThat(manual.isAutomatic()).isFalse();
            assertThat(manual.getHighCardinalityKeyValue("redlock.automatic").getValue()).isEqualTo("false");
            lease.autoExtend(Duration.ofSeconds(30));
            awaitTrue(Duration.ofSeconds(10), () -> this.stopped.stream().anyMatch(RedlockObservationContext::isAutomatic));
            RedlockObservationContext automatic = this.stopped.stream().filter(RedlockObservationContext::isAutomatic).findFirst().orElseThrow();
            assertThat(automatic.getLowCardinalityKeyValue("redlock.outcome").getValue()).isEqualTo("extended");
            assertThat(automatic.getAgreed()).as("decided once a quorum agreed").isBetween(3, 5);
            assertThat(automatic.getNodes().values()).filteredOn("granted"::equals).hasSizeGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void anExtensionRefusedByAMajorityIsRefused() {
        RedlockLease lease = this.redlock.get().acquire("gone", Duration.ofSeconds(10), Duration.ZERO);
        for (int node = 0; node < 3; node++) {
            this.inspector.get().set(node, "redlock:gone", "another-client", Duration.ofSeconds(30));
        }
        assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
        RedlockObservationContext refused = awaitStopped(Operation.EXTEND);
        assertThat(refused.getOutcome()).isEqualTo("refused");
        assertThat(refused.getNodes().values()).filteredOn("denied"::equals).hasSize(3);
        lease.release();
        assertThat(awaitStopped(Operation.RELEASE).getOutcome()).isEqualTo("not-held");
    }

    @Test
    void withTracingEachOperationIsAChildSpanOfTheCallersObservation() {
        SimpleTracer tracer = new SimpleTracer();
        ObservationRegistry tracing = ObservationRegistry.create();
        tracing.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
        try (Redlock traced = TestSupport.patientBuilder().nodes(redis.uris()).observationRegistry(tracing).build()) {
            Observation request = Observation.start("checkout", tracing);
            try (Observation.Scope scope = request.openScope()) {
                traced.acquire("cart:7", Duration.ofSeconds(10), Duration.ZERO).release();
            }
            request.stop();
            // Three spans, each ended: a span is listed from its start, and its tags are set when its observation stops,
            // which for an acquisition may come just after the call returned (the last nodes' replies are recorded).
            awaitTrue(Duration.ofSeconds(5), () -> tracer.getSpans().size() == 3
                    && tracer.getSpans().stream().allMatch((span) -> span.getEndTimestamp().isAfter(java.time.Instant.EPOCH)));
            SimpleSpan parent = tracer.getSpans().stream().filter((span) -> span.getName().equals("checkout")).findFirst().orElseThrow();
            SimpleSpan acquire = span(tracer, "redlock acquire");
            SimpleSpan release = span(tracer, "redlock release");
            assertThat(acquire.getParentId()).isEqualTo(parent.getSpanId());
            assertThat(release.getParentId()).isEqualTo(parent.getSpanId());
            assertThat(acquire.getTraceId()).isEqualTo(parent.getTraceId());
            assertThat(acquire.getTags()).containsEntry("redlock.outcome", "acquired").containsEntry("redlock.key", "cart:7")
                    .containsEntry("redlock.quorum", "3").containsKey("redlock.nodes.agreed").containsKey("redlock.nodes");
            assertThat(release.getTags()).containsEntry("redlock.outcome", "released");
        }
    }

    @Test
    void aConventionOfTheApplicationReplacesTheDefault() {
        DefaultRedlockObservationConvention team = new DefaultRedlockObservationConvention() {

            @Override
            public String getName() {
                return "payments.lock";
            }

            @Override
            public KeyValues getLowCardinalityKeyValues(RedlockObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("team", "payments");
            }

        };
        TestObservationRegistry own = TestObservationRegistry.create();
        try (Redlock custom = TestSupport.patientBuilder().nodes(redis.uris()).observationRegistry(own).observationConvention(team).build()) {
            custom.acquire("invoice:1", Duration.ofSeconds(10), Duration.ZERO).release();
            awaitTrue(Duration.ofSeconds(5), () -> hasObservations(own, "payments.lock", 2));
            assertThat(own).hasNumberOfObservationsWithNameEqualTo("payments.lock", 2).hasAnObservationWithAKeyValue("team", "payments")
                    .hasNumberOfObservationsWithNameEqualTo(DefaultRedlockObservationConvention.NAME, 0);
        }
    }

    @Test
    void handlersThatThrowNeitherFailTheLockNorLeaveItsKeys() {
        ObservationRegistry broken = ObservationRegistry.create();
        broken.observationConfig().observationHandler(new ObservationHandler<>() {

            @Override
            public void onStart(Observation.Context context) {
                throw new IllegalStateException("handler broken on start");
            }

            @Override
            public void onStop(Observation.Context context) {
                throw new IllegalStateException("handler broken on stop");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

        });
        try (Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observationRegistry(broken).build()) {
            for (int i = 0; i < 3; i++) {
                RedlockLease lease = redlock.acquire("fragile", Duration.ofSeconds(10), Duration.ZERO);
                this.inspector.get().awaitOnAll("redlock:fragile", lease.token());
                assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
                assertThat(lease.release()).isTrue();
                this.inspector.get().awaitAbsent("redlock:fragile");
            }
        }
    }

    /**
     * Handlers hold state from start to stop (a meter handler's timer sample, a tracer's span): each observation
     * that a handler saw start must reach its stop, also when another handler throws on start or on error, and
     * when the application's convention throws while the observation stops.
     */
    @Test
    void everyObservationAHandlerSawStartReachesItsStopWhateverThrows() throws Exception {
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {

            @Override
            public void onStart(Observation.Context context) {
                open.incrementAndGet();
                started.incrementAndGet();
            }

            @Override
            public void onStop(Observation.Context context) {
                open.decrementAndGet();
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

        });
        registry.observationConfig().observationHandler(new ObservationHandler<RedlockObservationContext>() {

            @Override
            public void onStart(RedlockObservationContext context) {
                if (context.getOperation() == Operation.RELEASE) {
                    throw new IllegalStateException("handler broken on the start of a release");
                }
            }

            @Override
            public void onError(RedlockObservationContext context) {
                throw new IllegalStateException("handler broken on error");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof RedlockObservationContext;
            }

        });
        DefaultRedlockObservationConvention brokenOnStop = new DefaultRedlockObservationConvention() {

            @Override
            public KeyValues getHighCardinalityKeyValues(RedlockObservationContext context) {
                if (context.getOperation() == Operation.EXTEND && !context.getOutcome().equals("unknown")) {
                    throw new IllegalStateException("convention broken when an extension stops");
                }
                return super.getHighCardinalityKeyValues(context);
            }

        };
        Redlock redlock = TestSupport.patientBuilder().nodes(redis.uris()).observationRegistry(registry).observationConvention(brokenOnStop).build();
        try {
            RedlockLease lease = redlock.acquire("broken", Duration.ofSeconds(10), Duration.ZERO);
            assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
            assertThat(lease.release()).isTrue();
            RedlockLease holder = redlock.acquire("broken", Duration.ofSeconds(10), Duration.ZERO);
            CompletableFuture<Optional<RedlockLease>> waiter = redlock.tryAcquireAsync("broken", Duration.ofSeconds(10), Duration.ofSeconds(30));
            assertThat(waiter).as("waits behind the holder (from the call on)").isNotDone();
            redlock.close(); // the waiter's acquisition ends in an error
            assertThat(waiter).failsWithin(Duration.ofSeconds(10));
            assertThat(holder.isValid()).isFalse();
        }
        finally {
            redlock.close();
        }
        awaitTrue(Duration.ofSeconds(5), () -> open.get() == 0);
        assertThat(started.get()).as("acquire, extend, release, acquire, acquire").isEqualTo(5);
    }

    private RedlockObservationContext awaitStopped(Operation operation) {
        awaitTrue(Duration.ofSeconds(5), () -> this.stopped.stream().anyMatch((context) -> context.getOperation() == operation));
        return this.stopped.stream().filter((context) -> context.getOperation() == operation).findFirst().orElseThrow();
    }

    /** The {@code count}-th observation of an operation on a key to stop. */
    private RedlockObservationContext awaitStopped(Operation operation, String key, int count) {
        awaitTrue(Duration.ofSeconds(5), () -> this.stopped.stream()
                .filter((context) -> context.getOperation() == operation && context.getKey().equals(key)).count() >= count);
        return this.stopped.stream().filter((context) -> context.getOperation() == operation && context.getKey().equals(key))
                .skip(count - 1).findFirst().orElseThrow();
    }

    private static SimpleSpan span(SimpleTracer tracer, String name) {
        return tracer.getSpans().stream().filter((span) -> span.getName().equals(name)).findFirst().orElseThrow();
    }

    private static boolean hasObservations(TestObservationRegistry registry, String name, int count) {
        try {
            assertThat(registry).hasNumberOfObservationsWithNameEqualTo(name, count);
            return true;
        }
        catch (AssertionError ex) {
            return false;
        }
    }

}
