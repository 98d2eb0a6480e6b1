package io.github.redlock.benchmarks;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.Redlock;
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

/**
 * Lock + unlock while one of the five nodes is frozen (SIGSTOP): a frozen node must cost at most one node
 * timeout, in parallel, and with an early quorum decision nothing at all.
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class PausedNodeBenchmark {

    private RedisNodes redis;

    private Redlock redlock;

    private ProtocolFloor floor;

    private RedissonPeers redisson;

    private final String key = UUID.randomUUID().toString();

    @Setup(Level.Trial)
    public void start() {
        this.redis = RedisNodes.start(5);
        this.redlock = Redlock.builder().nodes(this.redis.uris()).nodeTimeout(LockUnlockBenchmark.NODE_TIMEOUT).build();
        this.floor = new ProtocolFloor(this.redis.uris(), LockUnlockBenchmark.NODE_TIMEOUT);
        this.redisson = new RedissonPeers(this.redis.uris(), LockUnlockBenchmark.NODE_TIMEOUT);
        this.redis.node(4).pause();
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.redis.node(4).resume();
        this.redisson.close();
        this.floor.close();
        this.redlock.close();
        this.redis.close();
    }

    @Benchmark
    public boolean floor() throws Exception {
        return this.floor.lockUnlock("bench:" + this.key, LockUnlockBenchmark.TTL.toMillis());
    }

    @Benchmark
    public boolean redlock() {
        return this.redlock.tryAcquire(this.key, LockUnlockBenchmark.TTL).map((lease) -> lease.release()).orElse(false);
    }

    @Benchmark
    public boolean redissonRedlock() throws InterruptedException {
        return this.redisson.redlock("redisson:" + this.key, LockUnlockBenchmark.TTL.toMillis());
    }

}
