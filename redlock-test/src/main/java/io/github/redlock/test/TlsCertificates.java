package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Certificates for TLS nodes, generated with {@code openssl} into a temporary directory: a private certificate authority,
 * a server certificate it signed for {@code 127.0.0.1} and {@code localhost} (with its key), and a second, unrelated
 * authority, whose trust a client may be given to see a handshake fail. Valid for two days.
 *
 * <pre>{@code
 * try (TlsCertificates certificates = TlsCertificates.generate();
 *         RedisNode node = RedisNode.startTls(certificates)) {
 *     node.tlsUri();                        // "rediss://127.0.0.1:<port>"
 *     certificates.authority();             // the CA to trust, PEM
 * }
 * }</pre>
 */
public final class TlsCertificates implements AutoCloseable {

    private final Path directory;

    private TlsCertificates(Path directory) {
        this.directory = directory;
    }

    /**
     * Whether certificates can be generated here: {@code openssl} is on the {@code PATH}.
     * @return whether {@link #generate()} can work
     */
    public static boolean available() {
        try {
            return run(Path.of(System.getProperty("java.io.tmpdir")), List.of("openssl", "version"));
        }
        catch (IllegalStateException ex) {
            return false;
        }
    }

    /**
     * Generates the two authorities and the server certificate.
     * @return the certificates, in a directory that {@link #close()} deletes
     * @throws IllegalStateException when {@code openssl} is missing or fails, with its output
     */
    public static TlsCertificates generate() {
        Path directory;
        try {
            directory = Files.createTempDirectory("redlock-tls");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot create a directory for the certificates", ex);
        }
        TlsCertificates certificates = new TlsCertificates(directory);
        try {
            certificates.authority("ca", "redlock-test-ca");
            certificates.authority("other-ca", "redlock-test-other-ca");
            write(directory.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
            openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
            openssl(directory, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                    "server.crt", "-days", "2", "-extfile", "server.ext");
            return certificates;
        }
        catch (RuntimeException ex) {
            certificates.close();
            throw ex;
        }
    }

    private void authority(String name, String commonName) {
        openssl(this.directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".crt", "-days", "2",
                "-subj", "/CN=" + commonName);
    }

    /**
     * Returns the certificate authority that signed the server's certificate, PEM.
     * @return its file
     */
    public Path authority() {
        return this.directory.resolve("ca.crt");
    }

    /**
     * Returns an authority that signed nothing a node presents, PEM: trusting it alone, a client refuses every node.
     * @return its file
     */
    public Path otherAuthority() {
        return this.directory.resolve("other-ca.crt");
    }

    /**
     * Returns the server's certificate, PEM, for {@code 127.0.0.1} and {@code localhost}.
     * @return its file
     */
    public Path serverCertificate() {
        return this.directory.resolve("server.crt");
    }

    /**
     * Returns the server certificate's private key, PEM, unencrypted.
     * @return its file
     */
    public Path serverKey() {
        return this.directory.resolve("server.key");
    }

    /** Deletes the certificates. */
    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(this.directory)) {
            files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
        }
        catch (IOException ex) {
            // Left in the temporary directory.
        }
    }

    private static void openssl(Path directory, String... arguments) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        if (!run(directory, command)) {
            throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed in " + directory);
        }
    }

    private static boolean run(Path directory, List<String> command) {
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not end within 30 s");
            }
            return process.exitValue() == 0;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot run " + command.get(0) + ": install openssl (apt-get install openssl)", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command.get(0), ex);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.US_ASCII);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot write " + file, ex);
        }
    }

}
