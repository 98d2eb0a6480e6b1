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
 * The storage that lock holders write to: a separate {@code redis-server}, not one of the lock's nodes. It
 * orders every write (a sequence number) and keeps a log of them; a write that carries a fencing token is
 * accepted only if the token is not older than the newest one it accepted for that lock, as a database that
 * checks fencing tokens would. A write without a token (-1) is accepted unchecked.
 */
final class Storage implements AutoCloseable {

    /** KEYS[1]: the lock key; ARGV: lease token, fencing token (-1: none). Returns {seq, accepted}. */
    private static final String WRITE = """
            local seq = redis.call('incr', 'storage:seq')
            local fence = tonumber(ARGV[2])
            local accepted = 1
            if fence >= 0 then
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

    Storage(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = this.client.connect(StringCodec.UTF8);
        this.sha = this.connection.sync().scriptLoad(WRITE);
    }

    /**
     * Writes on behalf of a lock holder.
     * @return the storage's sequence number of the write, and whether it was accepted
     */
    long[] write(String lockKey, String leaseToken, long fencingToken) {
        List<Long> reply = this.connection.sync().evalsha(this.sha, ScriptOutputType.MULTI, new String[] { lockKey }, leaseToken,
                Long.toString(fencingToken));
        return new long[] { reply.get(0), reply.get(1) };
    }

    /** Writes the storage's log, in its order, as {@code storage.tsv} lines. */
    void dump(Path file) throws IOException {
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
