package io.github.redlock.fencing;

import java.time.Duration;

import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fenced writes to a Redis key used as storage, on real servers: three lock nodes with fencing on, and a fourth server
 * that holds the data. The hazard: a holder that pauses past its lease and then writes overwrites the write of the
 * holder that took the lock meanwhile. With {@link RedisFence} the storage refuses the stale write.
 */
class RedisFenceIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(4);

    @RegisterExtension
    final RedisClientExtension<Redlock> first = RedisClientExtension.of(redis, (uris) -> lock(uris));

    @RegisterExtension
    final RedisClientExtension<Redlock> second = RedisClientExtension.of(redis, (uris) -> lock(uris));

    private LettuceConnectionFactory storageConnections;

    private StringRedisTemplate storage;

    private RedisFence fence;

    @BeforeEach
    void connectTheStorage() {
        this.storageConnections = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.node(3).port()));
        this.storageConnections.afterPropertiesSet();
        this.storageConnections.start();
        this.storage = new StringRedisTemplate(this.storageConnections);
        this.fence = new RedisFence(this.storage);
    }

    @AfterEach
    void closeTheStorage() {
        this.storageConnections.destroy();
    }

    @Test
    void aHolderThatPausedPastItsLeaseCannotOverwriteTheNextHoldersWrite() throws Exception {
        RedlockLease paused = this.first.get().acquire("account:42", Duration.ofMillis(500), Duration.ZERO);
        // The next holder waits until the paused holder\'s lease has run out on the nodes.
        RedlockLease next = this.second.get().acquire("account:42", Duration.ofSeconds(10), Duration.ofSeconds(5));
        assertThat(next.fencingToken()).isGreaterThan(paused.fencingToken());
        this.fence.set("balance:42", "100 (next holder)", next.fencingToken());
        this.fence.set("balance:42", "110 (next holder, again)", next.fencingToken()); // the same holder writes many times

        assertThatThrownBy(() -> this.fence.set("balance:42", "90 (paused holder)", paused.fencingToken()))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, (ex) -> {
                    assertThat(ex.getResource()).isEqualTo("balance:42");
                    assertThat(ex.getToken()).isEqualTo(paused.fencingToken());
                    assertThat(ex.getFence()).isEqualTo(next.fencingToken());
                }).hasMessageContaining("Refused a stale write to 'balance:42'");
        assertThatThrownBy(() -> this.fence.delete("balance:42", paused.fencingToken())).isInstanceOf(StaleFencingTokenException.class);
        assertThatThrownBy(() -> this.fence.putHashField("balance:42", "f", "v", paused.fencingToken()))
                .isInstanceOf(StaleFencingTokenException.class);
        assertThat(this.storage.opsForValue().get("balance:42")).isEqualTo("110 (next holder, again)");
        assertThat(this.fence.fence("balance:42")).isEqualTo(next.fencingToken());
        next.release();
    }

    @Test
    void withoutTheFenceThePausedHoldersWriteLands() throws Exception {
        RedlockLease paused = this.first.get().acquire("account:7", Duration.ofMillis(500), Duration.ZERO);
        // The next holder waits until the paused holder\'s lease has run out on the nodes.
        RedlockLease next = this.second.get().acquire("account:7", Duration.ofSeconds(10), Duration.ofSeconds(5));
        this.storage.opsForValue().set("balance:7", "100 (next holder)");
        this.storage.opsForValue().set("balance:7", "90 (paused holder)"); // the hazard: nothing refuses it
        assertThat(this.storage.opsForValue().get("balance:7")).as("the stale write landed").isEqualTo("90 (paused holder)");
        assertThat(paused.isValid()).isFalse();
        next.release();
    }

    @Test
    void writesSetWithATimeToLiveDeleteKeepingTheFenceAndPutHashFields() {
        this.fence.set("session:1", "a", Duration.ofSeconds(30), 5);
        assertThat(this.storage.getExpire("session:1")).isBetween(1L, 30L);
        this.fence.putHashField("cart:1", "apples", "3", 7);
        assertThat(this.storage.opsForHash().get("cart:1", "apples")).isEqualTo("3");
        this.fence.delete("session:1", 6);
        assertThat(this.storage.hasKey("session:1")).isFalse();
        assertThat(this.fence.fence("session:1")).as("the fence outlives the data").isEqualTo(6);
        assertThatThrownBy(() -> this.fence.set("session:1", "stale", 5)).isInstanceOf(StaleFencingTokenException.class);
        assertThat(this.storage.hasKey("session:1")).isFalse();
        // Tokens beyond a Lua number's exact range (2^53) still compare exactly.
        this.fence.set("big", "x", Long.MAX_VALUE - 1);
        assertThatThrownBy(() -> this.fence.set("big", "y", Long.MAX_VALUE - 2)).isInstanceOf(StaleFencingTokenException.class);
        this.fence.set("big", "z", Long.MAX_VALUE);
        assertThat(this.storage.opsForValue().get("big")).isEqualTo("z");
        assertThatIllegalArgumentException().isThrownBy(() -> this.fence.set("k", "v", 0)).withMessageContaining("redlock.fencing");
    }

    @Test
    void aKeysFenceIsInTheKeysClusterSlot() {
        assertThat(RedisFence.fenceKey("balance:42")).isEqualTo("{balance:42}\u00FFfence");
        assertThat(RedisFence.fenceKey("user:{42}:balance")).isEqualTo("user:{42}:balance\u00FFfence");
        assertThat(RedisFence.fenceKey("odd:{}:key")).as("no hash tag, and none can be made (see fenceKey)").isEqualTo("{odd:{}:key}\u00FFfence");
    }

    private static Redlock lock(java.util.List<String> uris) {
        return Redlock.builder().nodes(uris.subList(0, 3)).fencing(true).nodeTimeout(Duration.ofSeconds(2)).build();
    }

}
