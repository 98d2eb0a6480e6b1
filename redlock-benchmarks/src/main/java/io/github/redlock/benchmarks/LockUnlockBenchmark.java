package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisNodes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One uncontended lock + unlock on five local nodes: {@code redlock} through the public API and
 * {@code annotated}, a {@code @Redlocked} method in a minimal Spring Boot application, against {@code floor},
 * the same commands on raw Lettuce. Run with {@code -bm sample} for percentiles and
 * {@code -t N} for N threads (each on its own key).
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.SampleTime, Mode.Throughput })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class LockUnlockBenchmark {

    private static final Duration TTL = Duration.ofSeconds(10);

    private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);

    private RedisNodes redis;

    private Redlock redlock;

    private ProtocolFloor floor;

    private ConfigurableApplicationContext spring;

    private AnnotatedService annotated;

    @Setup(Level.Trial)
    public void start() {
        this.redis = RedisNodes.start(5);
        this.redlock = Redlock.builder().nodes(this.redis.uris()).nodeTimeout(NODE_TIMEOUT).build();
        this.floor = new ProtocolFloor(this.redis.uris(), NODE_TIMEOUT);
        this.spring = new SpringApplicationBuilder(AnnotatedService.Application.class).web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .properties("redlock.nodes=" + String.join(",", this.redis.uris()),
                        "redlock.node-timeout=" + NODE_TIMEOUT.toMillis() + "ms", "logging.level.root=warn")
                .run();
        this.annotated = this.spring.getBean(AnnotatedService.class);
        if (!AopUtils.isAopProxy(this.annotated)) {
            throw new IllegalStateException("@Redlocked is not applied: the starter's auto-configuration was not found");
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.spring.close();
        this.floor.close();
        this.redlock.close();
        this.redis.close();
    }

    /** Each benchmark thread locks its own key: no contention. */
    @State(Scope.Thread)
    public static class ThreadKey {

        final String id = UUID.randomUUID().toString();

        final String key = "bench:" + this.id;

    }

    @Benchmark
    public boolean floor(ThreadKey thread) throws Exception {
        return this.floor.lockUnlock(thread.key, TTL.toMillis());
    }

    @Benchmark
    public void annotated(ThreadKey thread) {
        this.annotated.locked(thread.id);
    }

    @Benchmark
    public boolean redlock(ThreadKey thread) {
        RedlockLease lease = this.redlock.tryAcquire(thread.key, TTL).orElseThrow();
        return lease.release();
    }

}
