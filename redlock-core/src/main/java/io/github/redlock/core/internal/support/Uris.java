package io.github.redlock.core.internal.support;

import java.util.StringJoiner;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

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
        // Up to the last '@' of the run: a user-info may hold '/', '+' or a raw '@'. Where the entry is known, mask by
        // parsing it instead (maskedEntry, withoutSecretsOf): a user-info may hold spaces too.
        return text.replaceAll("(?<=://)\\S*@", "****@");
    }

    /**
     * Returns a node entry with its user-info replaced by {@code ****}: everything between the scheme's {@code ://} and
     * the last {@code @} of the entry, which may hold {@code /}, {@code +}, spaces and raw {@code @}.
     * @param entry a node entry as the application wrote it
     * @return the entry without its secrets
     */
    public static String maskedEntry(String entry) {
        int from = entry.indexOf("://") + 3;
        int to = entry.lastIndexOf('@');
        return (from >= 3 && to >= from) ? entry.substring(0, from) + "****" + entry.substring(to) : entry;
    }

    /**
     * Returns a text that may quote parts of a node entry (Lettuce's message about an entry it cannot parse quotes the
     * rest of it from where it stopped, e.g. {@code For input string: "y==@10.0.0.1:port"}) with every part of the
     * entry's user-info masked: a run of the text that the entry holds too, wherever it covers 3 or more characters of
     * the user-info, or any of them together with the {@code ://} or {@code @} around it. Masking a common word of the
     * message too is the price of never printing a fragment of a password.
     * @param entry a node entry as the application wrote it
     * @param text a text about it
     * @return the text without the entry's secrets
     */
    public static String withoutSecretsOf(String entry, String text) {
        int from = entry.indexOf("://") + 3;
        int to = entry.lastIndexOf('@');
        if (from < 3 || to <= from) {
            return text;
        }
        boolean[] secret = new boolean[text.length()];
        for (int i = 0; i < text.length(); i++) {
            for (int start = 0; start < entry.length(); start++) {
                int length = 0;
                while (i + length < text.length() && start + length < entry.length() && text.charAt(i + length) == entry.charAt(start + length)) {
                    length++;
                }
                int overlapFrom = Math.max(start, from);
                int overlapTo = Math.min(start + length, to);
                boolean crossesABoundary = start < from || start + length > to;
                if (overlapTo - overlapFrom >= 3 || (overlapTo > overlapFrom && crossesABoundary)) {
                    for (int j = overlapFrom; j < overlapTo; j++) {
                        secret[i + j - start] = true;
                    }
                }
            }
        }
        StringBuilder masked = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            if (!secret[i]) {
                masked.append(text.charAt(i));
            }
            else if (i == 0 || !secret[i - 1]) {
                masked.append("****");
            }
        }
        return masked.toString();
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
     * Why a TLS certificate was refused, if that is what {@code failure} says anywhere in its causes (an unknown
     * certificate authority, a name the certificate is not for), as {@link #describe} words it; else null (a node
     * down, a refused password are not certificate problems).
     */
    public static @Nullable String certificateProblem(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
            if (cause instanceof java.security.cert.CertificateException || cause instanceof java.security.cert.CertPathValidatorException
                    || cause instanceof javax.net.ssl.SSLPeerUnverifiedException) {
                return describe(failure);
            }
        }
        return null;
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
