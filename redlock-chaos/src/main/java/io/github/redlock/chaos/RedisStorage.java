package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;

/**
 * The storage on a machine without PostgreSQL: a separate {@code redis-server}, not one of the lock's nodes. One script
 * orders every write (a sequence number), keeps a log of them, and accepts a write that carries a fencing token only if
 * the token is not older than the newest one it accepted for that lock, as a database with {@code UPDATE ... WHERE
 * fence <= ?} would (unless the fence is off, for the control).
 */
final class RedisStorage implements Storage {

    /** KEYS[1]: the lock key; ARGV: lease token, fencing token (-1: none), 1 to check it. Returns {seq, accepted}. */
    private static final String WRITE = """
            local seq = redis.call('incr', 'storage:seq')
            local fence = tonumber(ARGV[2])
            local accepted = 1
            if fence >= 0 and ARGV[3] == '1' then
                local last = tonumber(redis.call('hget', 'storage:fence', KEYS[1]) or '-1')
                if fence < last then
                    accepted = 0
                else
                    redis.call('hset', 'storage:fence', KEYS[1], ARGV[2])
                end
            end
            if accepted == 1 then
                redis.call('hset', 'storage:value', KEYS[1], ARGV[1])
            end
            redis.call('rpush', 'storage:log', seq .. '\\t' .. KEYS[1] .. '\\t' .. ARGV[1] .. '\\t' .. ARGV[2] .. '\\t' .. accepted)
            return {seq, accepted}
            """;

    private static final int DUMP_CHUNK = 10_000;

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    private final String sha;

    private final String check;

    RedisStorage(String uri, boolean fence) {
        this.client = RedisClient.create(uri);
        this.connection = this.client.connect(StringCodec.UTF8);
        this.sha = this.connection.sync().scriptLoad(WRITE);
        this.check = fence ? "1" : "0";
    }

    @Override
    public Outcome write(String lockKey, String leaseToken, long fencingToken) {
        List<Long> reply = this.connection.sync().evalsha(this.sha, ScriptOutputType.MULTI, new String[] { lockKey }, leaseToken,
                Long.toString(fencingToken), this.check);
        return new Outcome(reply.get(0), reply.get(1) == 1);
    }

    @Override
    public void dump(Path file) throws IOException {
        RedisCommands<String, String> sync = this.connection.sync();
        long size = sync.llen("storage:log");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (long from = 0; from < size; from += DUMP_CHUNK) {
                for (String line : sync.lrange("storage:log", from, Math.min(size, from + DUMP_CHUNK) - 1)) {
                    out.write(line);
                    out.write('\n');
                }
            }
        }
    }

    @Override
    public void close() {
        this.connection.close();
        this.client.shutdown();
    }

}
