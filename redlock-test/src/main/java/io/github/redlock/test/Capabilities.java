package io.github.redlock.test;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;
import org.opentest4j.TestAbortedException;

/**
 * What a test needs of the machine beyond a JDK ({@code openssl} and a TLS build of {@code redis-server}, {@code
 * valkey-server}, a Java 21 or later, {@code libfaketime}, {@code promtool}): where it is missing, the test is skipped with a message, so
 * that a machine with only a JDK runs the rest of the suite; where the build requires it ({@code REDLOCK_CI_REQUIRE}, or
 * the {@code redlock.ci.require} system property, a comma-separated list such as {@code tls,valkey,jdk21,faketime}), the
 * test fails instead, so that a CI run cannot go green by skipping what it claims to test.
 */
public final class Capabilities {

    /** The environment variable that lists the required capabilities. */
    public static final String VARIABLE = "REDLOCK_CI_REQUIRE";

    /** The system property that lists them, before the environment variable. */
    public static final String PROPERTY = "redlock.ci.require";

    /** {@code openssl} and a {@code redis-server} built with TLS. */
    public static final String TLS = "tls";

    /** {@code valkey-server} on the {@code PATH}. */
    public static final String VALKEY = "valkey";

    /** A Java 21 or later, for the virtual thread tests. */
    public static final String JDK21 = "jdk21";

    /** Debian's {@code libfaketime}, for the clock faults. */
    public static final String FAKETIME = "faketime";

    /** {@code promtool} on the {@code PATH} (Debian's {@code prometheus}), for the tests of the shipped alerting rules. */
    public static final String PROMTOOL = "promtool";

    /** PostgreSQL's server binaries (Debian's {@code postgresql}), for the storage fencing tests ({@link DatabaseServer}). */
    public static final String POSTGRESQL = "postgresql";

    /** MariaDB's server binaries (Debian's {@code mariadb-server}), for the storage fencing tests ({@link DatabaseServer}). */
    public static final String MARIADB = "mariadb";

    /**
     * Node.js with node-redlock and ioredis from the npm registry (installed by the test itself), for the interoperation
     * test with another Redlock client.
     */
    public static final String NODE_REDLOCK = "node-redlock";

    /**
     * Network namespaces ({@link NetworkHost}: root and iproute2's {@code ip}), for the partition tests and the chaos
     * run's partition faults.
     */
    public static final String NETNS = "netns";

    /**
     * Cuts of one process from chosen ports ({@link ProcessCuts}: root, nftables' {@code nft} and the {@code net_cls}
     * cgroup controller), for partitions that a namespace per server cannot draw (a client cut from some of a cluster's
     * servers).
     */
    public static final String NFT = "nft";

    private Capabilities() {
    }

    /**
     * Skips the running test when a capability is missing, or fails it when the build requires that capability.
     * @param capability one of the constants of this class
     * @param present whether the machine has it
     * @param missing what is missing and how to get it, for the message
     * @throws TestAbortedException when it is missing and not required (the test is skipped)
     * @throws IllegalStateException when it is missing and required
     */
    public static void assume(String capability, boolean present, String missing) {
        if (present) {
            return;
        }
        if (required(capability)) {
            throw new IllegalStateException(missing + " (this build requires '" + capability + "': " + VARIABLE + "=" + list() + ")");
        }
        Assumptions.assumeTrue(false, missing);
    }

    /**
     * Whether the build requires a capability: its name is in {@code redlock.ci.require} or {@code REDLOCK_CI_REQUIRE}.
     * @param capability one of the constants of this class
     * @return whether a test that lacks it must fail rather than skip
     */
    public static boolean required(String capability) {
        return names().contains(capability);
    }

    private static String list() {
        String configured = System.getProperty(PROPERTY, System.getenv(VARIABLE));
        return (configured != null) ? configured : "";
    }

    private static Set<String> names() {
        return Arrays.stream(list().split(",")).map((name) -> name.trim().toLowerCase(Locale.ROOT)).filter((name) -> !name.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

}
