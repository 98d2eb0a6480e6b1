package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.HashedWheelTimer;

/**
 * The least any Redlock client must do, written directly on Lettuce: SET NX PX to every node at once,
 * wait for a quorum of replies, then the compare-and-delete script by SHA to every node at once, wait for
 * a quorum (a failed attempt sends the same compare-and-delete as its clean-up). Same client options as the
 * core (fail-fast, 50 ms command timeout on a 10 ms timer); no token from a CSPRNG, no validity arithmetic:
 * the network and Lettuce alone.
 */
final class ProtocolFloor implements AutoCloseable {

    private static final String RELEASE = """
            if redis.call('get', KEYS[1]) == ARGV[1] then
                return redis.call('del', KEYS[1])
            end
            return 0
            """;

    private final HashedWheelTimer timer = new HashedWheelTimer(10, TimeUnit.MILLISECONDS);

    private final ClientResources resources = DefaultClientResources.builder().timer(this.timer).build();

    private final RedisClient client = RedisClient.create(this.resources);

    private final RedisAsyncCommands<String, String>[] nodes;

    private final int quorum;

    private final String releaseSha;

    private final AtomicLong tokens = new AtomicLong();

    @SuppressWarnings("unchecked")
    ProtocolFloor(List<String> uris, Duration nodeTimeout) {
        this.client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(nodeTimeout))
                .build());
        this.nodes = new RedisAsyncCommands[uris.size()];
        String sha = null;
        for (int i = 0; i < uris.size(); i++) {
            StatefulRedisConnection<String, String> connection = this.client.connect(StringCodec.UTF8, RedisURI.create(uris.get(i)));
            this.nodes[i] = connection.async();
            sha = connection.sync().scriptLoad(RELEASE);
        }
        this.quorum = uris.size() / 2 + 1;
        this.releaseSha = sha;
    }

    /** One lock and unlock; returns whether both reached a quorum. */
    boolean lockUnlock(String key, long ttlMillis) throws Exception {
        String token = Long.toString(this.tokens.incrementAndGet());
        SetArgs args = SetArgs.Builder.nx().px(ttlMillis);
        CompletableFuture<Boolean> locked = new CompletableFuture<>();
        AtomicInteger yes = new AtomicInteger();
        AtomicInteger no = new AtomicInteger();
        for (RedisAsyncCommands<String, String> node : this.nodes) {
            count(node.set(key, token, args), "OK", yes, no, locked);
        }
        boolean acquired = locked.get(1, TimeUnit.SECONDS);
        CompletableFuture<Boolean> unlocked = new CompletableFuture<>();
        AtomicInteger deleted = new AtomicInteger();
        AtomicInteger kept = new AtomicInteger();
        String[] keys = { key };
        for (RedisAsyncCommands<String, String> node : this.nodes) {
            count(node.<Long>evalsha(this.releaseSha, ScriptOutputType.INTEGER, keys, token), 1L, deleted, kept, unlocked);
        }
        // Released, or cleaned up after a failed attempt: the same compare-and-delete on every node.
        boolean released = unlocked.get(1, TimeUnit.SECONDS);
        return acquired && released;
    }

    private <T> void count(RedisFuture<T> reply, T yesValue, AtomicInteger yes, AtomicInteger no,
            CompletableFuture<Boolean> decision) {
        reply.whenComplete((value, failure) -> {
            if (failure == null && yesValue.equals(value)) {
                if (yes.incrementAndGet() == this.quorum) {
                    decision.complete(true);
                }
            }
            else if (no.incrementAndGet() == this.nodes.length - this.quorum + 1) {
                decision.complete(false);
            }
        });
    }

    @Override
    public void close() {
        this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        this.resources.shutdown(0, 2, TimeUnit.SECONDS);
        this.timer.stop();
    }

}
