package io.github.redlock.sample.leader;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the leader election ({@code sample.leader.*}). A follower takes over as soon as the leader stops
 * and releases its lease, and within {@code ttl + heartbeat} of a leader that dies without releasing it.
 *
 * @param ttl time to live of the leader's lease between its automatic renewals: how long a leader that died
 * keeps the role at most
 * @param heartbeat time between two checks of the leadership by the leader, and how long a follower waits for
 * the lease in one attempt
 */
@ConfigurationProperties("sample.leader")
public record LeaderProperties(@DefaultValue("5s") Duration ttl, @DefaultValue("500ms") Duration heartbeat) {
}
