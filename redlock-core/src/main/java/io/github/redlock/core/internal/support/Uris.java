package io.github.redlock.core.internal.support;

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
