package io.github.redlock.core.internal.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.redlock.test.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multi-key acquisition scripts, run on one real node directly, without the client's clean-up after a refused
 * attempt (which deletes every key holding the attempt's token, and so would hide a script that set the free keys one
 * by one and stopped at the held one): where one of the keys is held, the script sets none of them, whichever position
 * the held key has; where none is, it sets all, each with the ttl.
 */
class MultiKeyScriptIntegrationTests {

    private static RedisNode node;

    private static RedisClient client;

    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void start() {
        node = RedisNode.start();
        client = RedisClient.create(node.uri());
        connection = client.connect();
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        node.close();
    }

    @Test
    void aHeldKeyInAnyPositionLeavesEveryOtherKeyUnset() {
        RedisCommands<String, String> redis = connection.sync();
        String[] keys = { "redlock:a", "redlock:b", "redlock:c" };
        for (LuaScript script : new LuaScript[] { LuaScript.ACQUIRE_MULTI, LuaScript.ACQUIRE_MULTI_FENCED }) {
            String name = (script == LuaScript.ACQUIRE_MULTI) ? "acquire-multi.lua" : "acquire-multi-fenced.lua";
            for (String held : keys) {
                redis.flushall();
                redis.set(held, "another-client", SetArgs.Builder.px(10_000));
                Object reply = evaluate(redis, script, keys);
                assertThat(reply).as("%s with %s held", name, held).isInstanceOf(Long.class);
                assertThat((Long) reply).as("a refusal: -(pttl + 2) of the held key").isLessThan(-2);
                for (String key : keys) {
                    if (!key.equals(held)) {
                        assertThat(redis.exists(key)).as("%s set while %s was held (%s)", key, held, name).isZero();
                    }
                }
                assertThat(redis.get(held)).isEqualTo("another-client");
            }
        }
    }

    @Test
    void freeKeysAreAllSetWithTheTtl() {
        RedisCommands<String, String> redis = connection.sync();
        redis.flushall();
        String[] keys = { "redlock:a", "redlock:b", "redlock:c" };
        Object reply = evaluate(redis, LuaScript.ACQUIRE_MULTI, keys);
        assertThat(reply).isEqualTo(1L);
        for (String key : keys) {
            assertThat(redis.get(key)).isEqualTo("token");
            assertThat(redis.pttl(key)).isBetween(9_000L, 10_000L);
        }
    }

    private static Object evaluate(RedisCommands<String, String> redis, LuaScript script, String[] keys) {
        // The fenced variant takes the node's fencing counter after the lock keys.
        if (script == LuaScript.ACQUIRE_MULTI_FENCED) {
            String[] withCounter = java.util.Arrays.copyOf(keys, keys.length + 1);
            withCounter[keys.length] = "{redlock:a}\u00fffence";
            return redis.eval(script.body().getBytes(StandardCharsets.UTF_8), ScriptOutputType.INTEGER, withCounter, "token", "10000");
        }
        return redis.eval(script.body().getBytes(StandardCharsets.UTF_8), ScriptOutputType.INTEGER, keys, "token", "10000");
    }

}
