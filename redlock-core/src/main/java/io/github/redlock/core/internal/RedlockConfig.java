package io.github.redlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.RestartQuarantine;
import io.github.redlock.core.internal.support.ClusterUri;
import io.github.redlock.core.internal.support.Uris;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * A {@code Redlock}'s configuration, validated and immutable, and the one place where its defaults are written.
 * {@code Redlock.Builder} collects what the application sets in a {@link Draft}, which starts from the defaults and
 * makes this record with {@link #of}; {@link RedlockAssembly} wires the parts from it.
 *
 * @param nodes the independent masters, each listed once
 * @param nodeTimeout the per-node command timeout, at least 1 ms
 * @param clockDriftFactor the fraction of the ttl allowed for clock drift, in [0, 1)
 * @param retryDelay the base delay between attempts, positive
 * @param keyPrefix the prefix of every Redis key
 * @param acquisitionBudget the fraction of the ttl an attempt may take, in (0, 1]
 * @param maxTtl the longest ttl an acquisition or extension may ask for, at least 1 ms
 * @param restartQuarantine when a restarted node may vote again
 * @param fencing whether exclusive and write leases carry fencing tokens
 * @param clientResources Lettuce resources shared with the application, or null for the lock's own
 * @param connector opens node connections, or null for a Lettuce client of the lock's own
 * @param sslOptions the TLS options of the lock's own client for {@code rediss://} nodes, or null for Lettuce's defaults
 * @param observer the application's observer, or null
 * @param observationRegistry the Micrometer registry of the observations, or null for none
 * @param observationConvention the convention of the observations, or null for the default
 * @param instanceId the holder's name in every lease token: 1 to 64 printable ASCII characters without spaces
 */
public record RedlockConfig(List<RedisURI> nodes, Duration nodeTimeout, double clockDriftFactor, Duration retryDelay,
        String keyPrefix, double acquisitionBudget, Duration maxTtl, RestartQuarantine restartQuarantine, boolean fencing,
        @Nullable ClientResources clientResources, @Nullable NodeConnector connector, @Nullable SslOptions sslOptions,
        @Nullable RedlockObserver observer, @Nullable ObservationRegistry observationRegistry,
        @Nullable RedlockObservationConvention observationConvention, String instanceId) {

    /** The longest instance id: a token carries it in every command. */
    public static final int MAX_INSTANCE_ID_LENGTH = 64;

    /** The default per-node command timeout: 50 ms. */
    public static final Duration DEFAULT_NODE_TIMEOUT = NodeConnector.DEFAULT_NODE_TIMEOUT;

    /** The default clock drift factor: 0.01. */
    public static final double DEFAULT_CLOCK_DRIFT_FACTOR = 0.01;

    /** The default base delay between attempts: 100 ms. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(100);

    /** The default key prefix: {@code "redlock:"}. */
    public static final String DEFAULT_KEY_PREFIX = "redlock:";

    /** The default acquisition budget: 1.0, no budget beyond the validity rule. */
    public static final double DEFAULT_ACQUISITION_BUDGET = 1.0;

    /** The default longest ttl: 60 s. */
    public static final Duration DEFAULT_MAX_TTL = Duration.ofSeconds(60);

    /** The default restart quarantine: {@link RestartQuarantine#AUTO}. */
    public static final RestartQuarantine DEFAULT_RESTART_QUARANTINE = RestartQuarantine.AUTO;

    /** Fencing is off by default. */
    public static final boolean DEFAULT_FENCING = false;

    /**
     * The record's copy of the node list.
     */
    public RedlockConfig {
        nodes = List.copyOf(nodes);
    }

    /**
     * Validates the settings as the application gave them, each check naming the setting at fault and what to write.
     * @param nodes the node URIs (may hold nulls and blanks: they are named)
     * @param nodeTimeout the per-node command timeout
     * @param clockDriftFactor the clock drift factor
     * @param retryDelay the base delay between attempts
     * @param keyPrefix the key prefix
     * @param acquisitionBudget the acquisition budget
     * @param maxTtl the longest ttl
     * @param restartQuarantine the restart quarantine
     * @param fencing whether leases carry fencing tokens
     * @param clientResources shared Lettuce resources, or null
     * @param connector the node connector, or null
     * @param sslOptions the TLS options of the lock's own client, or null
     * @param credentials the credentials of every node, asked at every (re)connection, or null for the URIs' own
     * @param observer the observer, or null
     * @param observationRegistry the observation registry, or null
     * @param observationConvention the observation convention, or null
     * @param instanceId the holder's name in every lease token, or null for {@link #defaultInstanceId()}
     * @return the configuration
     * @throws RedlockArgumentException if a setting is invalid
     */
    public static RedlockConfig of(@Nullable List<@Nullable String> nodes, @Nullable Duration nodeTimeout, double clockDriftFactor,
            @Nullable Duration retryDelay, @Nullable String keyPrefix, double acquisitionBudget, @Nullable Duration maxTtl,
            @Nullable RestartQuarantine restartQuarantine, boolean fencing, @Nullable ClientResources clientResources,
            @Nullable NodeConnector connector, @Nullable SslOptions sslOptions, @Nullable RedisCredentialsProvider credentials,
            @Nullable RedlockObserver observer, @Nullable ObservationRegistry observationRegistry,
            @Nullable RedlockObservationConvention observationConvention, @Nullable String instanceId) {
        String instance = (instanceId != null) ? checkInstanceId(instanceId) : defaultInstanceId();
        List<RedisURI> uris = parseNodes(nodes);
        if (credentials != null) {
            uris.forEach((uri) -> uri.setCredentialsProvider(credentials)); // Lettuce asks it at every (re)connection
        }
        if (nodeTimeout == null || nodeTimeout.isNegative() || nodeTimeout.toMillis() < 1) {
            throw new RedlockArgumentException("nodeTimeout", "nodeTimeout must be at least 1 ms, was " + nodeTimeout);
        }
        if (!(clockDriftFactor >= 0 && clockDriftFactor < 1)) {
            throw new RedlockArgumentException("clockDriftFactor", "clockDriftFactor must be at least 0 and below 1 (e.g. 0.01), was "
                    + clockDriftFactor);
        }
        if (retryDelay == null || retryDelay.isNegative() || retryDelay.isZero()) {
            throw new RedlockArgumentException("retryDelay", "retryDelay must be positive (e.g. 100ms), was " + retryDelay);
        }
        if (maxTtl == null || maxTtl.isNegative() || maxTtl.toMillis() < 1) {
            throw new RedlockArgumentException("maxTtl", "maxTtl must be at least 1 ms (e.g. 60s), was " + maxTtl);
        }
        if (restartQuarantine == null) {
            throw new RedlockArgumentException("restartQuarantine", "restartQuarantine must be AUTO, ALWAYS or NEVER, was null");
        }
        if (keyPrefix == null) {
            throw new RedlockArgumentException("keyPrefix", "keyPrefix must not be null; use \"\" for no prefix");
        }
        if (!(acquisitionBudget > 0 && acquisitionBudget <= 1)) {
            throw new RedlockArgumentException("acquisitionBudget", "acquisitionBudget must be above 0 and at most 1 (e.g. 0.33), was "
                    + acquisitionBudget);
        }
        return new RedlockConfig(uris, nodeTimeout, clockDriftFactor, retryDelay, keyPrefix, acquisitionBudget, maxTtl,
                restartQuarantine, fencing, clientResources, connector, sslOptions, observer, observationRegistry, observationConvention,
                instance);
    }

    /**
     * The instance id an application gets when it sets none ({@code Redlock.defaultInstanceId}): {@code <name>@host:pid},
     * or {@code host:pid} without a name.
     */
    public static String defaultInstanceId(@Nullable String applicationName) {
        String hostAndPid = defaultInstanceId();
        return (applicationName == null || applicationName.isBlank()) ? hostAndPid : sanitizedInstanceId(applicationName + "@" + hostAndPid);
    }

    /**
     * The instance id of a lock built without one: {@code host:pid}, the host's name read without a name lookup
     * ({@code HOSTNAME}, the kernel's, or {@code COMPUTERNAME}), each character outside the allowed ones replaced by
     * {@code _}.
     */
    public static String defaultInstanceId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).strip(); // Linux
            }
            catch (java.io.IOException | RuntimeException ex) {
                host = System.getenv("COMPUTERNAME"); // Windows
            }
        }
        if (host == null || host.isBlank()) {
            host = "localhost";
        }
        return sanitizedInstanceId(host + ":" + ProcessHandle.current().pid());
    }

    /**
     * An instance id made of any text: each character outside printable ASCII (or a space) replaced by {@code _},
     * cut to {@link #MAX_INSTANCE_ID_LENGTH} characters, keeping the end (the host and pid of a default); {@code _}
     * when empty.
     */
    public static String sanitizedInstanceId(String text) {
        StringBuilder id = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            id.append((c > ' ' && c < 0x7F) ? c : '_');
        }
        String sanitized = (id.length() > MAX_INSTANCE_ID_LENGTH) ? id.substring(id.length() - MAX_INSTANCE_ID_LENGTH) : id.toString();
        return sanitized.isEmpty() ? "_" : sanitized;
    }

    private static String checkInstanceId(String instanceId) {
        boolean printable = instanceId.chars().allMatch((c) -> c > ' ' && c < 0x7F);
        if (instanceId.isEmpty() || instanceId.length() > MAX_INSTANCE_ID_LENGTH || !printable) {
            throw new RedlockArgumentException("instanceId", "instanceId must be 1 to " + MAX_INSTANCE_ID_LENGTH + " printable ASCII "
                    + "characters without spaces (it names the holder in every lock it takes, e.g. orders@host-1:4242), was '"
                    + instanceId + "' (" + instanceId.length() + " characters)");
        }
        return instanceId;
    }

    /** How many nodes must agree: {@code N/2 + 1}. */
    public int quorum() {
        return this.nodes.size() / 2 + 1;
    }

    /** Parses and checks the node list: not empty, every entry a Redis URI, no node twice. */
    private static List<RedisURI> parseNodes(@Nullable List<@Nullable String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new RedlockArgumentException("nodes", "nodes must list at least one Redis master, e.g. "
                    + "nodes(\"redis://10.0.0.1:6379\", \"redis://10.0.0.2:6379\", \"redis://10.0.0.3:6379\")");
        }
        List<RedisURI> uris = new ArrayList<>(nodes.size());
        Set<String> seen = new HashSet<>();
        Set<String> clusterSeeds = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            RedisURI uri = parseNode(i, nodes.get(i));
            List<String> addresses = (uri instanceof ClusterUri cluster)
                    ? cluster.seeds().stream().map((seed) -> seed.getHost() + ":" + seed.getPort()).toList() : List.of(Uris.nodeName(uri));
            for (String address : addresses) {
                if (!seen.add(address)) {
                    boolean cluster = uri instanceof ClusterUri || clusterSeeds.contains(address);
                    throw new RedlockArgumentException("nodes", "nodes lists " + address + " twice; Redlock needs N independent "
                            + "masters, each listed once" + (cluster ? " (a Redis Cluster counts as one node: list it once, with its seed "
                            + "nodes)" : ""));
                }
            }
            if (uri instanceof ClusterUri) {
                clusterSeeds.addAll(addresses);
            }
            uris.add(uri);
        }
        return uris;
    }

    private static RedisURI parseNode(int index, @Nullable String node) {
        String where = "nodes[" + index + "]";
        if (node == null || node.isBlank()) {
            throw new RedlockArgumentException("nodes", where + " must be a Redis URI such as redis://10.0.0.1:6379, was "
                    + (node == null ? "null" : "blank"));
        }
        String trimmed = node.trim();
        int userInfo = trimmed.indexOf("://") + 3;
        if (userInfo >= 3 && trimmed.indexOf('@', userInfo) < trimmed.lastIndexOf('@')) {
            // Lettuce would take the first '@' as the end of the user-info, and the rest of the password as the host.
            throw new RedlockArgumentException("nodes", where + " '" + Uris.maskedEntry(node) + "' has a raw '@' in its user-info; "
                    + "write each '@' of a user or password as %40, e.g. redis://user:pa%40ss@host:port");
        }
        if (trimmed.startsWith("redis-cluster://") || trimmed.startsWith("rediss-cluster://")) {
            try {
                ClusterUri cluster = ClusterUri.parse(trimmed);
                // No CLIENT SETINFO in the handshake, as for the other entries (below).
                cluster.setLibraryName("");
                cluster.setLibraryVersion("");
                return cluster;
            }
            catch (RuntimeException ex) {
                throw new RedlockArgumentException("nodes", where + " '" + Uris.maskedEntry(node) + "' is not a valid Redis Cluster entry ("
                        + Uris.masked(Uris.withoutSecretsOf(node, String.valueOf(ex.getMessage()))) + "); write redis-cluster://host:port,host:port with the "
                        + "cluster's seed nodes");
            }
        }
        boolean sentinel = trimmed.startsWith("redis-sentinel://") || trimmed.startsWith("rediss-sentinel://");
        if (!sentinel && !trimmed.startsWith("redis://") && !trimmed.startsWith("rediss://") && !trimmed.startsWith("redis-socket://")) {
            throw new RedlockArgumentException("nodes", where + " '" + Uris.maskedEntry(node) + "' is not a Redis URI; write redis://host:port "
                    + "(rediss:// for TLS, redis://:password@host:port/db with a password), or "
                    + "redis-sentinel://host:port,host:port#master-name for a Sentinel group");
        }
        if (sentinel && (trimmed.indexOf('#') < 0 || trimmed.endsWith("#"))) {
            throw new RedlockArgumentException("nodes", where + " '" + Uris.maskedEntry(node) + "' names no master: a Sentinel node "
                    + "is redis-sentinel://host:port,host:port#master-name, with the name the sentinels monitor the master under");
        }
        try {
            RedisURI uri = RedisURI.create(trimmed);
            if (!sentinel && uri.getSocket() == null && (uri.getHost() == null || uri.getHost().isBlank())) {
                throw new IllegalArgumentException("no host");
            }
            if (sentinel && uri.getSentinels().stream().anyMatch((one) -> one.getHost() == null || one.getHost().isBlank())) {
                throw new IllegalArgumentException("a sentinel without a host");
            }
            // No CLIENT SETINFO in the handshake: the least-privilege ACL line cannot allow it on every server (Redis
            // before 7.2 refuses the name), and a refused one would fill the ACL LOG that operators watch.
            uri.setLibraryName("");
            uri.setLibraryVersion("");
            return uri;
        }
        catch (RuntimeException ex) {
            // Lettuce's message may quote the URI, and the cause would print it: neither goes out unmasked.
            throw new RedlockArgumentException("nodes", where + " '" + Uris.maskedEntry(node) + "' is not a valid Redis URI ("
                    + Uris.masked(Uris.withoutSecretsOf(node, String.valueOf(ex.getMessage()))) + "); write redis://host:port");
        }
    }

    /**
     * The settings a {@code Redlock.Builder} collects, each field named as the builder's method that sets it and starting
     * from its default, until {@link #toConfig()} validates them all at once. Mutable and not thread-safe, as a builder
     * is; only the builder writes it.
     */
    public static final class Draft {

        public @Nullable List<@Nullable String> nodes;

        public @Nullable Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;

        public double clockDriftFactor = DEFAULT_CLOCK_DRIFT_FACTOR;

        public @Nullable Duration retryDelay = DEFAULT_RETRY_DELAY;

        public @Nullable String keyPrefix = DEFAULT_KEY_PREFIX;

        public @Nullable String instanceId;

        public double acquisitionBudget = DEFAULT_ACQUISITION_BUDGET;

        public @Nullable Duration maxTtl = DEFAULT_MAX_TTL;

        public @Nullable RestartQuarantine restartQuarantine = DEFAULT_RESTART_QUARANTINE;

        public @Nullable SslOptions sslOptions;

        public @Nullable RedisCredentialsProvider credentials;

        public boolean fencing = DEFAULT_FENCING;

        public @Nullable ClientResources clientResources;

        public @Nullable NodeConnector connector;

        public @Nullable RedlockObserver observer;

        public @Nullable ObservationRegistry observationRegistry;

        public @Nullable RedlockObservationConvention observationConvention;

        /**
         * Validates the settings.
         * @return the configuration
         * @throws RedlockArgumentException if a setting is invalid (the message names it and says what to write)
         */
        public RedlockConfig toConfig() {
            return of(this.nodes, this.nodeTimeout, this.clockDriftFactor, this.retryDelay, this.keyPrefix, this.acquisitionBudget,
                    this.maxTtl, this.restartQuarantine, this.fencing, this.clientResources, this.connector, this.sslOptions,
                    this.credentials, this.observer, this.observationRegistry, this.observationConvention, this.instanceId);
        }

    }

}
