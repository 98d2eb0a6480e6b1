package io.github.redlock.core.internal.support;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.lettuce.core.RedisURI;

/**
 * A Redis Cluster node entry, {@code redis-cluster://[user:password@]host:port,host:port[/…]} ({@code rediss-cluster://}
 * with TLS): the seed nodes from which the lock learns the cluster's masters. As a {@link RedisURI} it is its first
 * seed, with the credentials, TLS and options that every server of the cluster is reached with.
 */
public final class ClusterUri extends RedisURI {

    private static final long serialVersionUID = 1L;

    private final List<RedisURI> seeds;

    private ClusterUri(RedisURI first, List<RedisURI> seeds) {
        super(first.getHost(), first.getPort(), first.getTimeout());
        setSsl(first.isSsl());
        setVerifyPeer(first.getVerifyMode());
        setStartTls(first.isStartTls());
        setCredentialsProvider(first.getCredentialsProvider());
        setDatabase(first.getDatabase());
        if (first.getClientName() != null) {
            setClientName(first.getClientName());
        }
        this.seeds = List.copyOf(seeds);
    }

    /**
     * Parses a cluster entry.
     * @param entry the entry, trimmed, starting with {@code redis-cluster://} or {@code rediss-cluster://}
     * @return the cluster's URI
     * @throws IllegalArgumentException when a seed is not {@code host:port}
     */
    public static ClusterUri parse(String entry) {
        boolean tls = entry.startsWith("rediss-cluster://");
        String rest = entry.substring(entry.indexOf("://") + 3);
        int at = rest.lastIndexOf('@', firstOf(rest, "/?"));
        String userInfo = (at >= 0) ? rest.substring(0, at + 1) : "";
        String hostsAndMore = rest.substring(at + 1);
        int end = firstOf(hostsAndMore, "/?");
        String hosts = hostsAndMore.substring(0, end);
        String more = hostsAndMore.substring(end);
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",")) {
            String seed = host.trim();
            if (seed.isEmpty() || seed.indexOf(':') < 0) {
                throw new IllegalArgumentException("a seed node is not host:port: '" + seed + "'");
            }
            RedisURI uri = RedisURI.create((tls ? "rediss://" : "redis://") + userInfo + seed + more);
            if (uri.getHost() == null || uri.getHost().isBlank()) {
                throw new IllegalArgumentException("a seed node without a host");
            }
            seeds.add(uri);
        }
        return new ClusterUri(seeds.get(0), seeds);
    }

    private static int firstOf(String text, String characters) {
        int first = text.length();
        for (char character : characters.toCharArray()) {
            int index = text.indexOf(character);
            if (index >= 0 && index < first) {
                first = index;
            }
        }
        return first;
    }

    /** The seed nodes, as listed, each reached as {@link #server} reaches a server (only their addresses are their own). */
    public List<RedisURI> seeds() {
        return this.seeds.stream().map((seed) -> server(seed.getHost(), seed.getPort())).toList();
    }

    /**
     * One server of the cluster at {@code host:port}, reached as the seeds are (credentials, TLS, options).
     * @param host the server's host
     * @param port its port
     * @return its URI
     */
    public RedisURI server(String host, int port) {
        RedisURI server = RedisURI.builder(this).withHost(host).withPort(port).build();
        server.setLibraryName(getLibraryName());
        server.setLibraryVersion(getLibraryVersion());
        return server;
    }

    /** The entry's name in errors, statuses and the restart records: {@code cluster@host:port,host:port}. */
    public String name() {
        StringJoiner names = new StringJoiner(",", "cluster@", "");
        this.seeds.forEach((seed) -> names.add(seed.getHost() + ":" + seed.getPort()));
        return names.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClusterUri cluster && cluster.seeds.equals(this.seeds);
    }

    @Override
    public int hashCode() {
        return this.seeds.hashCode();
    }

    @Override
    public String toString() {
        return "redis-cluster://" + name().substring("cluster@".length());
    }

}
