package io.github.redlock.core.internal.engine;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Lease tokens: 128 bits from a CSPRNG, URL-safe Base64 (22 characters).
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

    /** A fresh, unguessable token. */
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
