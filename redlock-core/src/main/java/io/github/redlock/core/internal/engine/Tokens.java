package io.github.redlock.core.internal.engine;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

/**
 * Lease tokens: 128 bits from a CSPRNG, URL-safe Base64 (22 characters), after the holder's instance id and a colon
 * ({@code <instance-id>:<random>}), so that whoever reads a lock's value sees who holds it.
 */
public final class Tokens {

    /**
     * Independent DRBG instances, one picked at random per token. A single shared {@code SecureRandom}
     * serialises every acquisition on one monitor (and all NativePRNG instances share one), which stalled
     * threads for over 10 ms at 64 threads in the benchmarks.
     */
    private static final SecureRandom[] RANDOMS = newRandoms(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    private Tokens() {
    }

    /** The length of a token's random part. */
    private static final int RANDOM_LENGTH = 22;

    /** A fresh, unguessable token of the holder {@code instanceId} ({@code <instance-id>:<random>}). */
    public static String newToken(String instanceId) {
        return instanceId + ":" + newToken();
    }

    /**
     * The instance id a token names, or null when it names none: a token of another Redlock client (opaque), or of
     * a version before instance ids. Only a token that ends with a colon and a random part of this client's form
     * names one.
     */
    public static @Nullable String holderOf(String token) {
        int colon = token.length() - RANDOM_LENGTH - 1;
        if (colon < 1 || token.charAt(colon) != ':') {
            return null;
        }
        for (int i = colon + 1; i < token.length(); i++) {
            char c = token.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return null;
            }
        }
        return token.substring(0, colon);
    }

    /** A fresh, unguessable random part: also a token on its own, where no holder is to be named (a client's id). */
    public static String newToken() {
        byte[] bytes = new byte[16];
        RANDOMS[ThreadLocalRandom.current().nextInt(RANDOMS.length)].nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static SecureRandom[] newRandoms(int count) {
        SecureRandom[] randoms = new SecureRandom[count];
        for (int i = 0; i < count; i++) {
            try {
                randoms[i] = SecureRandom.getInstance("DRBG"); // seeded from the platform's entropy source
            }
            catch (NoSuchAlgorithmException ex) {
                randoms[i] = new SecureRandom();
            }
        }
        return randoms;
    }

}
