package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisNodes;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One lock + unlock (a single attempt, no wait) on five local nodes, by every contender on the same nodes in
 * the same run: {@code floor} (the protocol's commands on raw Lettuce), {@code redlock} (the public API),
 * {@code read} and {@code write} (the two sides of the read-write lock), {@code annotated} (a
 * {@code @Redlocked} method in a minimal Spring Boot application), {@code annotatedKotlin} and
 * {@code kotlinCoroutine} (its Kotlin twin, a {@code @Redlocked suspend fun} in the same application, see below),
 * {@code coroutineRedlock} ({@code redlock}'s calls awaited in a coroutine), {@code bridgeJava} and
 * {@code bridgeKotlin} (an advice that only proceeds, see {@link PassThrough}),
 * {@code redissonRedlock} (Redisson's
 * RedissonRedLock over five clients) and {@code redissonSingle} (a Redisson RLock on one node); {@code fenced}
 * is {@code redlock} with fencing tokens on (a second, confirming round per acquisition), on a second client
 * of the same nodes; {@code observed} is {@code redlock} with every acquisition and release observed as a
 * Micrometer observation recorded as meters (the {@code DefaultMeterObservationHandler} an application with
 * Actuator has), on a third client.
 * {@code contention}: {@code uncontended} gives each thread its own key, {@code contended} makes all threads
 * fight for 8 keys. Run {@code -t N} for N threads.
 * <p>
 * The Kotlin path is measured two ways, both against {@code annotated} in the same state (the same nodes, the same
 * Spring context, which holds both services and so one aspect and one {@code Redlock}): {@code annotatedKotlin}
 * makes each call as a Kotlin caller on a plain thread must, in {@code runBlocking}, so its score includes what
 * {@code runBlocking} costs that caller (an event loop and a coroutine per call) besides the aspect's reactive
 * path; it is the one compared with {@code annotated}, the strict comparison, since the Java method's caller is
 * also a plain thread blocked until the call returns. {@code kotlinCoroutine} makes 100 calls one after the
 * other from one coroutine, as a coroutine application does, so {@code runBlocking} is paid once per 100 calls:
 * the cost of the suspend path itself. Each call of either waits for the lock, the empty body and the release
 * as the Java one does; the thread (or the coroutine) has its own key, or one of the 8 shared ones.
 * {@code annotatedPair} makes a call of {@code annotated} and one of {@code annotatedKotlin} per invocation, timed
 * one by one ({@link InterleavedCalls}): the two compared in the same seconds of the same fork.
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class LockUnlockBenchmark {

    static final Duration TTL = Duration.ofSeconds(10);

    static final Duration NODE_TIMEOUT = Duration.ofMillis(50);

    /** The calls {@code kotlinCoroutine} makes from one coroutine, over which {@code runBlocking}'s cost is spread. */
    static final int CALLS_PER_COROUTINE = 100;

    @Param({ "uncontended", "contended" })
    public String contention;

    private RedisNodes redis;

    private Redlock redlock;

    private Redlock fencedRedlock;

    private Redlock observedRedlock;

    private ProtocolFloor floor;

    private ConfigurableApplicationContext spring;

    private AnnotatedService annotated;

    private SuspendService suspending;

    private RedissonPeers redisson;

    /**
     * Starts the nodes and the contenders on them; Redisson's only for its own benchmarks, whose clients' start on a
     * 50 ms timeout fails on a loaded machine and would fail the fork of another contender.
     * @param params which benchmark the fork runs
     */
    @Setup(Level.Trial)
    public void start(BenchmarkParams params) {
        this.redis = RedisNodes.start(5);
        this.redlock = Redlock.builder().nodes(this.redis.uris()).nodeTimeout(NODE_TIMEOUT).build();
        this.fencedRedlock = Redlock.builder().nodes(this.redis.uris()).nodeTimeout(NODE_TIMEOUT).fencing(true).build();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
        this.observedRedlock = Redlock.builder().nodes(this.redis.uris()).nodeTimeout(NODE_TIMEOUT).observationRegistry(observations).build();
        this.floor = new ProtocolFloor(this.redis.uris(), NODE_TIMEOUT);
        this.spring = new SpringApplicationBuilder(AnnotatedService.Application.class).web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .properties("redlock.nodes=" + String.join(",", this.redis.uris()),
                        "redlock.node-timeout=" + NODE_TIMEOUT.toMillis() + "ms", "logging.level.root=warn")
                .run();
        this.annotated = this.spring.getBean(AnnotatedService.class);
        this.suspending = this.spring.getBean(SuspendService.class);
        if (!AopUtils.isAopProxy(this.annotated) || !AopUtils.isAopProxy(this.suspending)) {
            throw new IllegalStateException("@Redlocked is not applied: the starter's auto-configuration was not found");
        }
        if (params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1).startsWith("redisson")) {
            this.redisson = new RedissonPeers(this.redis.uris(), NODE_TIMEOUT);
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (this.redisson != null) {
            this.redisson.close();
        }
        this.spring.close();
        this.floor.close();
        this.fencedRedlock.close();
        this.observedRedlock.close();
        this.redlock.close();
        this.redis.close();
    }

    /** The key of each operation: the thread's own, or one of 8 shared ones. */
    @State(Scope.Thread)
    public static class Keys {

        private static final String[] SHARED = { "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" };

        private final String own = UUID.randomUUID().toString();

        private boolean contended;

        @Setup(Level.Trial)
        public void choose(LockUnlockBenchmark benchmark) {
            this.contended = benchmark.contention.equals("contended");
        }

        String next() {
            return this.contended ? SHARED[ThreadLocalRandom.current().nextInt(SHARED.length)] : this.own;
        }

    }

    @Benchmark
    public boolean floor(Keys keys) throws Exception {
        return this.floor.lockUnlock("bench:" + keys.next(), TTL.toMillis());
    }

    @Benchmark
    public boolean redlock(Keys keys) {
        return this.redlock.tryAcquire(keys.next(), TTL).map((lease) -> lease.release()).orElse(false);
    }

    @Benchmark
    public boolean coroutineRedlock(Keys keys) {
        return SuspendCalls.lockUnlockAwaiting(this.redlock, keys.next(), TTL);
    }

    @Benchmark
    public boolean fenced(Keys keys) {
        return this.fencedRedlock.tryAcquire(keys.next(), TTL).map((lease) -> lease.fencingToken() > 0 && lease.release())
                .orElse(false);
    }

    @Benchmark
    public boolean observed(Keys keys) {
        return this.observedRedlock.tryAcquire(keys.next(), TTL).map((lease) -> lease.release()).orElse(false);
    }

    @Benchmark
    public boolean read(Keys keys) {
        return this.redlock.tryAcquireRead(keys.next(), TTL).map((lease) -> lease.release()).orElse(false);
    }

    @Benchmark
    public boolean write(Keys keys) {
        return this.redlock.tryAcquireWrite(keys.next(), TTL).map((lease) -> lease.release()).orElse(false);
    }

    @Benchmark
    public void annotated(Keys keys) {
        this.annotated.locked(keys.next());
    }

    @Benchmark
    public void annotatedKotlin(Keys keys) {
        SuspendCalls.callBlocking(this.suspending, keys.next());
    }

    /**
     * A call of {@code annotated} and one of {@code annotatedKotlin} per invocation, each timed on its own by
     * {@link InterleavedCalls}, in alternating order: the comparison of the two in the same seconds of the same fork.
     * JMH's own score counts the two calls of an invocation (one call with {@code -p block=n}); the paths' figures are
     * {@link InterleavedCalls}'.
     * @param keys the thread's key
     * @param calls the timing of each call
     */
    @Benchmark
    @OperationsPerInvocation(2)
    public void annotatedPair(Keys keys, InterleavedCalls calls) {
        String key = keys.next();
        calls.run(() -> this.annotated.locked(key), calls.second.equals("annotated") ? () -> this.annotated.locked(key)
                : () -> SuspendCalls.callBlocking(this.suspending, key));
    }

    @Benchmark
    public void bridgeJava(Keys keys) {
        this.annotated.passThrough(keys.next());
    }

    @Benchmark
    public void bridgeKotlin(Keys keys) {
        SuspendCalls.passThroughBlocking(this.suspending, keys.next());
    }

    @Benchmark
    @OperationsPerInvocation(CALLS_PER_COROUTINE)
    public void kotlinCoroutine(Keys keys) {
        SuspendCalls.callInCoroutine(this.suspending, keys::next, CALLS_PER_COROUTINE);
    }

    @Benchmark
    public boolean redissonRedlock(Keys keys) throws InterruptedException {
        return this.redisson.redlock("redisson:" + keys.next(), TTL.toMillis());
    }

    @Benchmark
    public boolean redissonSingle(Keys keys) throws InterruptedException {
        return this.redisson.single("redisson1:" + keys.next(), TTL.toMillis());
    }

}
