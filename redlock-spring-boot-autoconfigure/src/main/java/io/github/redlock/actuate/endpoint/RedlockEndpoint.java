package io.github.redlock.actuate.endpoint;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.github.redlock.core.LockInspection;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code redlock} Actuator endpoint: the nodes with their connection state, the quorum, and the leases
 * this instance holds with their remaining validity; {@code /locks/{name}} reads who holds one lock on the nodes,
 * whichever instance holds it ({@link Redlock#inspect(String)}: it only reads). Its one write operation, an operator's revoke over HTTP, is
 * {@link RedlockEndpointWebExtension}'s, present only when {@code redlock.endpoint.revoke.enabled=true}.
 */
@Endpoint(id = "redlock")
public class RedlockEndpoint {

    private final Redlock redlock;

    /**
     * Creates the endpoint.
     * @param redlock the lock to describe
     */
    public RedlockEndpoint(Redlock redlock) {
        this.redlock = redlock;
    }

    /**
     * Describes the lock.
     * @return nodes, quorum and held leases
     */
    @ReadOperation
    public RedlockDescriptor redlock() {
        Map<String, Boolean> connections = this.redlock.nodeConnections();
        List<NodeDescriptor> nodes = this.redlock.nodeStatuses().entrySet().stream()
                .map((node) -> new NodeDescriptor(node.getKey(), connections.getOrDefault(node.getKey(), false) ? "CONNECTED" : "DISCONNECTED",
                        node.getValue().state().name(), node.getValue().quarantinedFor().toMillis(), node.getValue().reason()))
                .toList();
        List<LeaseDescriptor> leases = this.redlock.heldLeases().stream()
                .sorted(Comparator.comparing(RedlockLease::acquiredAt))
                .map((lease) -> new LeaseDescriptor(lease.key(), lease.acquiredAt(), lease.remainingValidity().toMillis(),
                        lease.isValid()))
                .toList();
        return new RedlockDescriptor(this.redlock.quorum(), nodes, leases);
    }

    /**
     * Reads who holds one lock on the nodes: {@code GET /actuator/redlock/locks/{name}}.
     * @param collection {@code locks}; anything else is not found
     * @param name the lock's name as the application writes it, without the key prefix
     * @return what the nodes hold of it, or null (404) for another collection
     */
    @ReadOperation
    public @Nullable LockDescriptor lock(@Selector String collection, @Selector String name) {
        if (!"locks".equals(collection)) {
            return null;
        }
        LockInspection inspection = this.redlock.inspect(name);
        return new LockDescriptor(inspection.key(), inspection.held(), inspection.holder(), inspection.nodes());
    }

    /**
     * Who holds one lock ({@link LockInspection}).
     * @param key the lock's name, without the key prefix
     * @param held whether a quorum of the voting nodes holds it
     * @param holder the instance id that holds it, {@code unknown} for another client's token, or null (not held, or
     * held by readers)
     * @param nodes each node's part: {@code state} ({@code HELD}, {@code FREE}, {@code DOWN}, {@code QUARANTINED}),
     * {@code kind}, {@code remainingMillis}, {@code holder}, {@code readers}
     */
    public record LockDescriptor(String key, boolean held, @Nullable String holder, List<LockInspection.Node> nodes)
            implements OperationResponseBody {
    }

    /**
     * The endpoint's answer.
     * @param quorum how many nodes must agree
     * @param nodes every node
     * @param leases the leases this instance holds
     */
    public record RedlockDescriptor(int quorum, List<NodeDescriptor> nodes, List<LeaseDescriptor> leases)
            implements OperationResponseBody {
    }

    /**
     * One node.
     * @param node {@code host:port}
     * @param state {@code CONNECTED} or {@code DISCONNECTED}
     * @param vote {@code UP} (voting), {@code DOWN} or {@code QUARANTINED} (restarted recently)
     * @param quarantinedForMillis how much longer a quarantined node waits before it votes; 0 otherwise
     * @param reason why the node does not vote, or empty
     */
    public record NodeDescriptor(String node, String state, String vote, long quarantinedForMillis, String reason) {
    }

    /**
     * One lease held by this instance.
     * @param key the key as locked (without prefix)
     * @param acquiredAt when it was acquired
     * @param remainingValidityMillis how much longer it is valid
     * @param valid whether it is still valid (an expired one was not released yet)
     */
    public record LeaseDescriptor(String key, Instant acquiredAt, long remainingValidityMillis, boolean valid) {
    }

}
