package io.github.redlock.core.internal;

import java.util.concurrent.ForkJoinPool;

import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.internal.engine.LockEngine;
import io.github.redlock.core.internal.guard.Fencing;
import io.github.redlock.core.internal.guard.RestartGuard;
import io.github.redlock.core.internal.lease.LockObservations;
import io.github.redlock.core.internal.lease.Revocation;
import io.github.redlock.core.internal.node.NodeConnections;
import io.github.redlock.core.internal.node.NodeSet;
import io.github.redlock.core.internal.node.RedisNodeClient;
import io.github.redlock.core.internal.release.ReleaseMessages;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The parts of a {@code Redlock}, wired from its configuration: the node clients and their connections, the engine,
 * the restart guard, the observations, and the operator's revoke. {@link #wire} connects to the nodes and starts the guard's checks.
 *
 * @param engine runs attempts, releases and extensions
 * @param nodes one client per node, in the configured order
 * @param keyPrefix the prefix of every Redis key
 * @param connections the connections' client and resources, closed with the lock
 * @param restartGuard decides when a restarted node may vote again
 * @param observations the observations of acquisitions, or null when the application gave no registry
 * @param revocation an operator's revoke of an exclusive lock on every node
 */
public record RedlockAssembly(LockEngine engine, RedisNodeClient[] nodes, String keyPrefix, NodeConnections connections,
        RestartGuard restartGuard, @Nullable LockObservations observations, Revocation revocation) {

    /**
     * Creates the parts, connects to every node at once (waiting a bounded time for reachable ones) and starts the
     * restart guard, so that reachable nodes are checked when this returns. Unreachable nodes keep connecting in the
     * background and count as "no" meanwhile.
     * @param config the validated configuration
     * @return the parts
     */
    /**
     * Fails the build when a node's first connection was refused for its TLS certificate: a configuration to fix (the
     * certificate authority to trust, the name the certificate is for), which retrying would only hide behind a node
     * that counts as "no" forever. Closes what was opened first.
     */
    private static void refuseUntrustedCertificates(NodeConnections connections, RedisNodeClient[] clients) {
        for (int i = 0; i < clients.length; i++) {
            String problem = clients[i].certificateProblem();
            if (problem != null) {
                connections.close(clients);
                throw new RedlockArgumentException("nodes", "nodes[" + i + "] (" + clients[i].name() + ") failed the TLS handshake: "
                        + problem + "; trust the certificate authority "
                        + "that signed its certificate (Redlock.builder().sslOptions(…), or redlock.ssl.bundle with the starter), "
                        + "and connect by a name its certificate is for");
            }
        }
    }

    public static RedlockAssembly wire(RedlockConfig config) {
        NodeConnections connections = NodeConnections.create(config.clientResources(), config.connector(), config.nodeTimeout(),
                config.sslOptions());
        RedisNodeClient[] clients = config.nodes().stream()
                .map((uri) -> new RedisNodeClient(connections.connector(), uri, connections.scheduler()))
                .toArray(RedisNodeClient[]::new);
        connections.connectAll(clients, config.nodeTimeout());
        refuseUntrustedCertificates(connections, clients);
        // Created only with a registry: without one, no class of the optional Micrometer dependency is loaded.
        ObservationRegistry registry = config.observationRegistry();
        LockObservations observations = (registry != null)
                ? new LockObservations(registry, config.observationConvention(), config.quorum()) : null;
        NodeSet nodeSet = new NodeSet(clients, connections.timer(), connections.scheduler(), config.nodeTimeout().toNanos(),
                config.clockDriftFactor(), config.observer());
        Fencing fencing = config.fencing() ? new Fencing(clients, config.keyPrefix()) : null;
        ReleaseMessages messages = new ReleaseMessages(config.nodes(), connections.connector(), ForkJoinPool.commonPool(),
                connections.scheduler());
        LockEngine engine = new LockEngine(nodeSet, config.retryDelay().toNanos(), config.acquisitionBudget(),
                config.maxTtl().toMillis(), (fencing != null) ? fencing.counterKey() : null, messages, observations, config.instanceId());
        RestartGuard guard = new RestartGuard(clients, config.keyPrefix(), config.restartQuarantine(), config.maxTtl().toMillis(),
                nodeSet.drift(config.maxTtl().toNanos()), fencing, connections.scheduler());
        guard.start(Math.max(config.nodeTimeout().toMillis(), 1000) + 1000);
        return new RedlockAssembly(engine, clients, config.keyPrefix(), connections, guard, observations, new Revocation(nodeSet));
    }

}
