/**
 * Real {@code redis-server} processes on free loopback ports for tests and demos, with fault injection: independent
 * standalone nodes ({@link io.github.redlock.test.RedisNodes}, {@link io.github.redlock.test.RedisNode}), a local Redis
 * Cluster ({@link io.github.redlock.test.RedisCluster}) and a Sentinel-managed master with replicas
 * ({@link io.github.redlock.test.RedisSentinelGroup}), the last two with failovers. Every process runs the
 * {@code redis-server} the harness finds ({@code REDLOCK_REDIS_SERVER}, else the {@code PATH}, else the binary shipped
 * in a Maven artifact, which runs clusters and sentinels too) and never outlives the JVM.
 */
@NullMarked
package io.github.redlock.test;

import org.jspecify.annotations.NullMarked;
