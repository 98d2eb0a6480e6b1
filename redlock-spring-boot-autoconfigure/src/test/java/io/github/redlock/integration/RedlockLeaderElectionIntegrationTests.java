package io.github.redlock.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisClientExtension;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on {@link RedlockLockRegistry}s of two instances
 * (two Redlocks on five real nodes): one leader, a take-over when it stops, and leadership revoked as soon as
 * its lease is lost rather than at the next heartbeat.
 */
class RedlockLeaderElectionIntegrationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @RegisterExtension
    final RedisClientExtension<Redlock> first = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).fencing(true).build());

    @RegisterExtension
    final RedisClientExtension<Redlock> second = RedisClientExtension.of(redis,
            (uris) -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).fencing(true).build());

    @Test
    void oneInstanceLeadsAndTheOtherTakesOverWhenItStopsWithAGreaterEpoch() throws Exception {
        Instance a = new Instance("a", new RedlockLockRegistry(this.first.get(), "leader", Duration.ofSeconds(2)), 100);
        Instance b = new Instance("b", new RedlockLockRegistry(this.second.get(), "leader", Duration.ofSeconds(2)), 100);
        a.initiator.start();
        Await.until(() -> a.isLeader(), "a leads");
        b.initiator.start();
        try {
            Thread.sleep(500); // several heartbeats of b
            assertThat(b.isLeader()).as("b while a leads").isFalse();
            long firstEpoch = a.registry.lease("cluster").orElseThrow().fencingToken();
            long stopped = System.nanoTime();
            a.initiator.stop();
            Await.until(() -> b.isLeader(), "b takes over");
            long takeOverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            // a's revocation is published by its initiator's own thread as it stops, which may come after b's grant.
            Await.until(() -> a.events.size() >= 2, "a's revocation is published");
            assertThat(a.events).containsExactly("granted", "revoked");
            assertThat(b.events).containsExactly("granted");
            assertThat(b.registry.lease("cluster").orElseThrow().fencingToken()).as("b's epoch").isGreaterThan(firstEpoch);
            assertThat(takeOverMillis).as("take-over after a clean stop, ms").isLessThan(5_000);
        }
        finally {
            a.initiator.stop();
            b.initiator.stop();
        }
    }

    @Test
    void aLeaderWhoseLeaseIsLostStepsDownAtOnceNotAtItsNextHeartbeat() throws Exception {
        Instance leader = new Instance("a", new RedlockLockRegistry(this.first.get(), "leader", Duration.ofSeconds(2)), 20_000);
        assertThat(stepDownMillisAfterTheKeysVanish(leader)).as("ms until revoked, heartbeat 20 s").isLessThan(8_000);
    }

    @Test
    void withoutTheInterruptALeaderWhoseLeaseIsLostStaysLeaderUntilItsNextHeartbeat() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(this.first.get(), "leader", Duration.ofSeconds(2));
        registry.setInterruptOnLoss(false);
        Instance leader = new Instance("a", registry, 20_000);
        assertThat(stepDownMillisAfterTheKeysVanish(leader)).as("ms until revoked, heartbeat 20 s").isGreaterThanOrEqualTo(8_000);
    }

    /** Makes the instance leader, deletes the keys on every node, and measures until its leadership is revoked. */
    private static long stepDownMillisAfterTheKeysVanish(Instance leader) throws Exception {
        leader.initiator.start();
        try {
            Await.until(leader::isLeader, "leads");
            Thread.sleep(100); // the selector is back in its heartbeat sleep
            long start = System.nanoTime();
            for (int node = 0; node < 5; node++) {
                redis.node(node).flushAll(); // the next extension is refused by every node: the lease is lost
            }
            long deadline = start + TimeUnit.SECONDS.toNanos(8);
            while (leader.isLeader() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
        finally {
            leader.initiator.stop();
        }
    }

    /** One instance: its registry, its initiator, and what its candidate was told. */
    private static final class Instance implements Candidate {

        final List<String> events = new CopyOnWriteArrayList<>();

        final RedlockLockRegistry registry;

        final LockRegistryLeaderInitiator initiator;

        private final String id;

        Instance(String id, RedlockLockRegistry registry, long heartBeatMillis) {
            this.id = id;
            this.registry = registry;
            this.initiator = new LockRegistryLeaderInitiator(registry, this);
            this.initiator.setHeartBeatMillis(heartBeatMillis);
            this.initiator.setBusyWaitMillis(50);
            this.initiator.setApplicationEventPublisher((event) -> { });
        }

        boolean isLeader() {
            return this.initiator.getContext().isLeader();
        }

        @Override
        public String getRole() {
            return "cluster";
        }

        @Override
        public String getId() {
            return this.id;
        }

        @Override
        public void onGranted(Context context) {
            this.events.add("granted");
        }

        @Override
        public void onRevoked(Context context) {
            this.events.add("revoked");
        }

    }

}
