package io.github.redlock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} executable to run: the one named by {@code REDLOCK_REDIS_SERVER}
 * (or the {@code redlock.redis-server} system property), else the first on the {@code PATH}, else a
 * binary shipped inside the {@code com.github.codemonstur:embedded-redis} artifact, extracted once per
 * JVM. The value {@code embedded} forces the shipped binary.
 */
final class RedisServerBinary {

    static final String ENVIRONMENT_VARIABLE = "REDLOCK_REDIS_SERVER";

    static final String SYSTEM_PROPERTY = "redlock.redis-server";

    private static volatile @Nullable Path resolved;

    private RedisServerBinary() {
    }

    /**
     * Returns the executable to run, resolving it on first use.
     * @return the path of a {@code redis-server} executable
     * @throws IllegalStateException when none can be found, with what to do about it
     */
    static Path get() {
        Path path = resolved;
        if (path == null) {
            synchronized (RedisServerBinary.class) { // once per JVM, never on a hot path
                path = resolved;
                if (path == null) {
                    path = resolve();
                    resolved = path;
                }
            }
        }
        return path;
    }

    private static Path resolve() {
        String configured = System.getProperty(SYSTEM_PROPERTY, System.getenv(ENVIRONMENT_VARIABLE));
        if (configured != null && !configured.isBlank()) {
            if (configured.equals("embedded")) {
                return extractShipped();
            }
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(ENVIRONMENT_VARIABLE + " names '" + configured
                        + "', which is not an executable file; point it at a redis-server binary, or unset it");
            }
            return path;
        }
        Path onPath = findOnPath();
        return (onPath != null) ? onPath : extractShipped();
    }

    private static @Nullable Path findOnPath() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return null;
        }
        for (String directory : pathVariable.split(File.pathSeparator)) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, "redis-server");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    static Path extractShipped() {
        String resource = shippedResourceName();
        try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("No redis-server on the PATH and no shipped binary '" + resource
                        + "' on the classpath; install redis-server (e.g. apt-get install redis-server), set "
                        + ENVIRONMENT_VARIABLE + " to its path, or add com.github.codemonstur:embedded-redis");
            }
            Path directory = Files.createTempDirectory("redlock-redis-bin");
            directory.toFile().deleteOnExit(); // deleted in reverse order: the binary first, then the folder
            Path binary = directory.resolve("redis-server");
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
            if (!binary.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("Cannot make " + binary + " executable");
            }
            binary.toFile().deleteOnExit();
            return binary;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot extract the shipped redis-server binary " + resource, ex);
        }
    }

    private static String shippedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.equals("aarch64") || arch.equals("arm64");
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm) {
                return "redis-server-6.2.7-linux-arm64";
            }
        }
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException("No shipped redis-server binary for " + os + "/" + arch
                + "; install redis-server or set " + ENVIRONMENT_VARIABLE + " to its path");
    }

}
