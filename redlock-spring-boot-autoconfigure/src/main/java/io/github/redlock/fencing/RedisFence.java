package io.github.redlock.fencing;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Fenced writes to a Redis key used as storage, for teams that keep the data a lock protects in Redis: each write
 * carries the lease's fencing token ({@code RedlockLease.fencingToken()}, with {@code redlock.fencing=true}), and one
 * script applies it only when the token is not below the key's fence, raising the fence to it. A holder that paused
 * past its lease, while a later holder wrote, gets a {@link StaleFencingTokenException} and changes nothing; the same
 * holder may write many times. The fence of a key is a second key beside it ({@link #fenceKey(String)}, in the same
 * Redis Cluster slot), kept without expiry: it must outlive every holder that could still write, so do not delete it
 * with the data ({@link #delete} keeps it).
 * <p>
 * Unlike a lock alone, this holds under pauses of any length: the storage refuses the stale write, as Kleppmann's
 * fencing requires. Use it on the Redis that holds the data (any {@link RedisOperations} of {@code String} keys and
 * values, e.g. Spring Boot's {@code StringRedisTemplate}), not on the lock's nodes.
 */
public final class RedisFence {

    /** The suffix of a key's fence, after the byte 0xFF that no UTF-8 text contains. */
    private static final String FENCE_SUFFIX = "\u00FFfence";

    private static final RedisScript<List> SCRIPT = RedisScript.of(new ClassPathResource("io/github/redlock/fencing/fenced-write.lua"),
            List.class);

    private final RedisOperations<String, String> redis;

    /**
     * Creates fenced writes through the given operations.
     * @param redis operations on the Redis that holds the data, with {@code String} keys and values
     */
    public RedisFence(RedisOperations<String, String> redis) {
        Assert.notNull(redis, "redis must not be null");
        this.redis = redis;
    }

    /**
     * Sets {@code key} to {@code value}, without expiry, if {@code token} is not below the key's fence.
     * @param key the key
     * @param value its new value
     * @param token the writer's fencing token
     * @throws StaleFencingTokenException if a later holder wrote the key already
     */
    public void set(String key, String value, long token) {
        write(key, token, "set", value, "0");
    }

    /**
     * Sets {@code key} to {@code value} for {@code ttl}, if {@code token} is not below the key's fence.
     * @param key the key
     * @param value its new value
     * @param ttl how long the key lives, at least 1 ms
     * @param token the writer's fencing token
     * @throws StaleFencingTokenException if a later holder wrote the key already
     */
    public void set(String key, String value, Duration ttl, long token) {
        Assert.isTrue(ttl != null && ttl.toMillis() >= 1, () -> "ttl must be at least 1 ms, was " + ttl);
        write(key, token, "set", value, Long.toString(ttl.toMillis()));
    }

    /**
     * Deletes {@code key} (its fence stays) if {@code token} is not below the key's fence.
     * @param key the key
     * @param token the writer's fencing token
     * @throws StaleFencingTokenException if a later holder wrote the key already
     */
    public void delete(String key, long token) {
        write(key, token, "del");
    }

    /**
     * Sets the field {@code field} of the hash {@code key} to {@code value}, if {@code token} is not below the key's fence
     * (one fence for the whole hash).
     * @param key the hash's key
     * @param field the field
     * @param value its new value
     * @param token the writer's fencing token
     * @throws StaleFencingTokenException if a later holder wrote the hash already
     */
    public void putHashField(String key, String field, String value, long token) {
        write(key, token, "hset", field, value);
    }

    /**
     * Returns the key's fence: the highest fencing token a write to it carried, or 0 before the first.
     * @param key the key
     * @return the fence
     */
    public long fence(String key) {
        String fence = this.redis.opsForValue().get(fenceKey(key));
        return (fence != null) ? Long.parseLong(fence) : 0;
    }

    /**
     * The key that holds a key's fence: in the key's own Redis Cluster slot (the key's hash tag, or the key itself as
     * one), followed by the byte 0xFF and {@code fence}. A key with a {@code }} but no hash tag (e.g. {@code a:{}:b})
     * cannot have a fence in its slot: on a Redis Cluster its fenced writes fail (CROSSSLOT); give it a hash tag.
     * @param key the key
     * @return its fence's key
     */
    public static String fenceKey(String key) {
        int open = key.indexOf('{');
        int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
        boolean tagged = open >= 0 && close > open + 1;
        return (tagged ? key : "{" + key + "}") + FENCE_SUFFIX;
    }

    private void write(String key, long token, String operation, String... arguments) {
        Assert.hasLength(key, "key must not be empty");
        Assert.isTrue(token > 0, () -> "token must be a lease's fencing token (above 0; is redlock.fencing on?), was " + token);
        Object[] args = new Object[2 + arguments.length];
        args[0] = Long.toString(token);
        args[1] = operation;
        System.arraycopy(arguments, 0, args, 2, arguments.length);
        List<?> reply = this.redis.execute(SCRIPT, List.of(key, fenceKey(key)), args);
        if (reply == null || reply.size() < 2) {
            throw new IllegalStateException("The fenced write to '" + key + "' got no answer from Redis (in a transaction or pipeline?)");
        }
        if (!"1".equals(String.valueOf(reply.get(0)))) {
            throw new StaleFencingTokenException(key, token, parse(reply.get(1)));
        }
    }

    private static long parse(@Nullable Object fence) {
        return (fence != null) ? Long.parseLong(String.valueOf(fence)) : 0;
    }

}
