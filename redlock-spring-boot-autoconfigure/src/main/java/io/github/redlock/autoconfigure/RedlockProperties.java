package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.aop.RedlockedAspect;
import io.github.redlock.core.RestartQuarantine;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Redlock starter ({@code redlock.*}).
 */
@ConfigurationProperties("redlock")
public class RedlockProperties {

    /**
     * Whether to enable the Redlock starter.
     */
    private boolean enabled = true;

    /**
     * URIs of the independent Redis masters, e.g. redis://10.0.0.1:6379 (rediss:// for TLS, redis://:password@host:port/db with a password), or of Sentinel groups, redis-sentinel://10.0.1.1:26379,10.0.1.2:26379#master-name, or of Redis Clusters, redis-cluster://10.0.2.1:6379,10.0.2.2:6379 (the seed nodes of one cluster, which counts as one node). Three or five are typical.
     */
    private List<String> nodes = new ArrayList<>();

    private final Ssl ssl = new Ssl();

    /**
     * Time to live of a lock when @Redlocked does not set one.
     */
    private Duration defaultTtl = Duration.ofSeconds(30);

    /**
     * Time to keep trying to acquire a lock when @Redlocked does not set one; zero for a single attempt.
     */
    private Duration defaultWaitTime = Duration.ZERO;

    /**
     * How long after the acquisition a @Redlocked(autoExtend = true) method's lock stops being extended,
     * for methods that set no maxHold.
     */
    private Duration defaultMaxHold = Duration.ofMinutes(10);

    /**
     * Longest time to live a lock or an extension may ask for; longer work uses autoExtend. A node that restarted without its keys waits this long before it votes again.
     */
    private @Nullable Duration maxTtl;

    /**
     * When a node that restarted may vote again: auto (a node that restarted while in use waits the longest max-ttl any client recorded for it after its start; fresh nodes, and nodes with appendfsync always that prove they kept their data, vote at once), always (every node up for less than max-ttl waits, first start included) or never.
     */
    private @Nullable RestartQuarantine restartQuarantine;

    /**
     * Whether exclusive and write leases carry a fencing token (RedlockLease.fencingToken(), RedlockContext.currentLease()) that storage can check to refuse a holder that paused past its lease. Costs one more parallel round trip per acquisition and one counter key per node.
     */
    private @Nullable Boolean fencing;

    /**
     * Whether, with fencing on, requests of the RestClient and WebClient that Spring Boot's builders make carry the current lease's fencing token as the Redlock-Fencing-Token header, for downstream services that check it.
     */
    private boolean fencingHeader = true;

    /**
     * Time after which a node that has not answered counts as a "no"; keep it small compared to the ttl.
     */
    private @Nullable Duration nodeTimeout;

    /**
     * Fraction of the ttl allowed for clock drift between nodes; a lease's validity is shortened by ttl * factor + 2 ms.
     */
    private @Nullable Double clockDriftFactor;

    /**
     * Base delay between acquisition attempts, jittered between half and one and a half times it.
     */
    private @Nullable Duration retryDelay;

    /**
     * Prefix of every Redis key the lock writes.
     */
    private @Nullable String keyPrefix;

    /**
     * Name of this instance in every lock it takes (each token is "<instance-id>:<random>"), shown by inspections and by other instances' failures; 1 to 64 printable ASCII characters without spaces. Default "${spring.application.name}@host:pid".
     */
    private @Nullable String instanceId;

    /**
     * The fences that a relational database enforces.
     */
    private final JdbcFence jdbcFence = new JdbcFence();

    /**
     * Largest fraction of the ttl an acquisition may take for the lock to be accepted (e.g. 0.33 for the "elapsed <= ttl/3" variant); 1 for no budget beyond the validity rule.
     */
    private @Nullable Double acquisitionBudget;

    /**
     * Order of the @Redlocked aspect among a method's advice, lower running further outside; keep it below the transaction interceptor's order (if @EnableTransactionManagement sets an order, lower than that) so that a lock is released only after its transaction ended.
     */
    private int aspectOrder = RedlockedAspect.DEFAULT_ORDER;

    private final Endpoint endpoint = new Endpoint();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Ssl getSsl() {
        return this.ssl;
    }

    public List<String> getNodes() {
        return this.nodes;
    }

    /**
     * Sets the node list. A comma-separated value splits a Sentinel node's or a Redis Cluster node's host list too: a part
     * without a scheme that follows a {@code redis-sentinel://} entry not yet ended by its {@code #master-name}, or a
     * {@code redis-cluster://} entry, is joined back to it.
     * @param nodes the node URIs
     */
    public void setNodes(List<String> nodes) {
        List<String> joined = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            int last = joined.size() - 1;
            if (last >= 0 && node != null && !node.contains("://") && continues(joined.get(last))) {
                joined.set(last, joined.get(last) + "," + node.trim());
            }
            else {
                joined.add(node);
            }
        }
        this.nodes = joined;
    }

    /**
     * Whether a node entry is one whose host list a comma split: a Sentinel group's without its {@code #master-name} yet,
     * or a Redis Cluster's (its seed nodes).
     */
    private static boolean continues(String entry) {
        String trimmed = (entry != null) ? entry.trim() : "";
        return (trimmed.startsWith("redis-sentinel://") || trimmed.startsWith("rediss-sentinel://")) && trimmed.indexOf('#') < 0
                || trimmed.startsWith("redis-cluster://") || trimmed.startsWith("rediss-cluster://");
    }

    public Duration getDefaultTtl() {
        return this.defaultTtl;
    }

    public void setDefaultTtl(Duration defaultTtl) {
        this.defaultTtl = defaultTtl;
    }

    public Duration getDefaultWaitTime() {
        return this.defaultWaitTime;
    }

    public void setDefaultWaitTime(Duration defaultWaitTime) {
        this.defaultWaitTime = defaultWaitTime;
    }

    public Duration getDefaultMaxHold() {
        return this.defaultMaxHold;
    }

    public void setDefaultMaxHold(Duration defaultMaxHold) {
        this.defaultMaxHold = defaultMaxHold;
    }

    public @Nullable Duration getMaxTtl() {
        return this.maxTtl;
    }

    public void setMaxTtl(@Nullable Duration maxTtl) {
        this.maxTtl = maxTtl;
    }

    public @Nullable Boolean getFencing() {
        return this.fencing;
    }

    public void setFencing(@Nullable Boolean fencing) {
        this.fencing = fencing;
    }

    public boolean isFencingHeader() {
        return this.fencingHeader;
    }

    public void setFencingHeader(boolean fencingHeader) {
        this.fencingHeader = fencingHeader;
    }

    public @Nullable RestartQuarantine getRestartQuarantine() {
        return this.restartQuarantine;
    }

    public void setRestartQuarantine(@Nullable RestartQuarantine restartQuarantine) {
        this.restartQuarantine = restartQuarantine;
    }

    public @Nullable Duration getNodeTimeout() {
        return this.nodeTimeout;
    }

    public void setNodeTimeout(@Nullable Duration nodeTimeout) {
        this.nodeTimeout = nodeTimeout;
    }

    public @Nullable Double getClockDriftFactor() {
        return this.clockDriftFactor;
    }

    public void setClockDriftFactor(@Nullable Double clockDriftFactor) {
        this.clockDriftFactor = clockDriftFactor;
    }

    public @Nullable Duration getRetryDelay() {
        return this.retryDelay;
    }

    public void setRetryDelay(@Nullable Duration retryDelay) {
        this.retryDelay = retryDelay;
    }

    public @Nullable String getInstanceId() {
        return this.instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public @Nullable String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(@Nullable String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public @Nullable Double getAcquisitionBudget() {
        return this.acquisitionBudget;
    }

    public void setAcquisitionBudget(@Nullable Double acquisitionBudget) {
        this.acquisitionBudget = acquisitionBudget;
    }

    public int getAspectOrder() {
        return this.aspectOrder;
    }

    public void setAspectOrder(int aspectOrder) {
        this.aspectOrder = aspectOrder;
    }

    /**
     * TLS of the {@code rediss://} nodes.
     */
    public static class Ssl {

        /**
         * Name of the SSL bundle (spring.ssl.bundle.*) whose trust material and key material the connections to rediss:// nodes use, e.g. a private certificate authority; without one, the JVM's trust store.
         */
        private @Nullable String bundle;

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }

    }

    public Endpoint getEndpoint() {
        return this.endpoint;
    }

    /**
     * Settings of the {@code redlock} Actuator endpoint ({@code redlock.endpoint.*}).
     */
    public static class Endpoint {

        private final Revoke revoke = new Revoke();

        public Revoke getRevoke() {
            return this.revoke;
        }

    }

    /**
     * The endpoint's write operation, {@code DELETE /actuator/redlock/{name}} ({@code redlock.endpoint.revoke.*}).
     */
    public static class Revoke {

        /**
         * Whether DELETE /actuator/redlock/{name} frees the exclusive lock 'name' on every node, whoever holds it, for an operator whose lock holder is gone. Secure it (e.g. with Spring Security) before turning it on.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

    }

    public JdbcFence getJdbcFence() {
        return this.jdbcFence;
    }

    /**
     * The fences that a relational database enforces ({@code io.github.redlock.fencing.JdbcFence}), a bean when
     * {@code redlock.fencing=true} and the application has a {@code DataSource}.
     */
    public static class JdbcFence {

        /**
         * Name of the table of the fences, optionally with its schema.
         */
        private String tableName = "redlock_fence";

        /**
         * When to create the table of the fences at start-up: for an embedded database only, always, or never.
         */
        private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

        public String getTableName() {
            return this.tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public InitializeSchema getInitializeSchema() {
            return this.initializeSchema;
        }

        public void setInitializeSchema(InitializeSchema initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

    }

    /** When the table of the fences is created at start-up (as Spring Session's and Spring Batch's schemas). */
    public enum InitializeSchema {

        /** Only in an embedded database (H2, HSQLDB, Derby). */
        EMBEDDED,

        /** In any database, where it does not exist. */
        ALWAYS,

        /** Never: create it with the schema scripts beside {@code JdbcFence}. */
        NEVER

    }

}
