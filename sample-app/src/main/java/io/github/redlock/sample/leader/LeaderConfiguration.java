package io.github.redlock.sample.leader;

import io.github.redlock.core.Redlock;
import io.github.redlock.integration.RedlockLockRegistry;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Elects one instance to run the {@link OutboxRelay}: Spring Integration's {@link LockRegistryLeaderInitiator}
 * over a {@link RedlockLockRegistry}, so the leadership is a Redlock held by a quorum of the nodes.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LeaderProperties.class)
class LeaderConfiguration {

    /**
     * The leader's lock, the key {@code <redlock.key-prefix>leader:outbox-relay}. The starter defines a registry
     * when the application has none, with a 30 s ttl: a leader that died would keep the role for up to 30 s.
     */
    @Bean
    RedlockLockRegistry leaderLocks(Redlock redlock, LeaderProperties properties) {
        return new RedlockLockRegistry(redlock, "leader", properties.ttl());
    }

    /** Started with the application; stopped with it, which releases the leadership for a follower to take. */
    @Bean
    LockRegistryLeaderInitiator leaderInitiator(RedlockLockRegistry leaderLocks, OutboxRelay relay, LeaderProperties properties) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(leaderLocks, relay);
        initiator.setHeartBeatMillis(properties.heartbeat().toMillis());
        return initiator;
    }

}
