package io.github.redlock.core.internal.support;

import java.util.StringJoiner;

import io.lettuce.core.RedisURI;

/**
 * Node URIs as the library may print them: never with a password.
 */
public final class Uris {

    private Uris() {
    }

    /**
     * Returns a node URI, or a text that may quote one, with every user-info (a password, or a user and a password)
     * replaced by {@code ****}, in every host list.
     * @param text a node entry as the application wrote it, or a message that may quote one
     * @return the text without its secrets
     */
    public static String masked(String text) {
        return text.replaceAll("(?<=://)[^@/\\s]*@", "****@");
    }

    /**
     * How lock errors, statuses, logs and the restart records name a node: {@code host:port} (or the socket path); a
     * Sentinel group by its master name and its sentinels, {@code name@host:port,host:port}; a Redis Cluster by its seed
     * nodes, {@code cluster@host:port,host:port}. Never with a password.
     * @param uri the node's URI
     * @return its name
     */
    public static String nodeName(RedisURI uri) {
        if (uri instanceof ClusterUri cluster) {
            return cluster.name();
        }
        if (isSentinel(uri)) {
            StringJoiner sentinels = new StringJoiner(",", uri.getSentinelMasterId() + "@", "");
            uri.getSentinels().forEach((sentinel) -> sentinels.add(sentinel.getHost() + ":" + sentinel.getPort()));
            return sentinels.toString();
        }
        return (uri.getSocket() != null) ? uri.getSocket() : uri.getHost() + ":" + uri.getPort();
    }

    /**
     * Whether a URI names a Sentinel group ({@code redis-sentinel://…#name}) rather than one server.
     * @param uri the node's URI
     * @return whether it names the master of a Sentinel group
     */
    public static boolean isSentinel(RedisURI uri) {
        return uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty();
    }

    /**
     * Describes a failure by its whole cause chain, each message once, joined by {@code ": "}: Lettuce's "Unable to
     * connect" says where, its causes say why (a refused password, an unknown certificate authority), and masked.
     * @param failure the failure
     * @return its description
     */
    public static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 8; depth++) {
            String message = cause.getMessage();
            if (message == null || message.isBlank()) {
                message = cause.getClass().getSimpleName();
            }
            if (text.indexOf(message) < 0) {
                text.append((text.length() > 0) ? ": " : "").append(message.strip());
            }
            cause = (cause.getCause() != cause) ? cause.getCause() : null;
        }
        return masked(text.toString());
    }

}
