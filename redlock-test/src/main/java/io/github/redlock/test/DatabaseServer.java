package io.github.redlock.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL or MariaDB server for a test: started from the machine's binaries (Debian's {@code postgresql} and
 * {@code mariadb-server}, which {@code .ci/run} installs) in a temporary directory, on a free loopback port, trusting
 * every local login; stopped, and its directory deleted, by {@link #close()}. Run as root, the server runs as
 * {@code nobody} ({@code setpriv}), as PostgreSQL refuses root. {@link #find} says whether the binaries are there, so
 * that a test skips (or, where the build requires them, fails: {@link Capabilities}) with a message where they are not.
 */
public final class DatabaseServer implements AutoCloseable {

    /** A kind of database server. */
    public enum Kind {

        /** PostgreSQL: {@code initdb} and {@code postgres}. */
        POSTGRESQL,

        /** MariaDB: {@code mariadb-install-db} and {@code mariadbd}. */
        MARIADB

    }

    private static final Duration START_BOUND = Duration.ofSeconds(60);

    private final Kind kind;

    private final Path directory;

    private final int port;

    private final Process process;

    private DatabaseServer(Kind kind, Path directory, int port, Process process) {
        this.kind = kind;
        this.directory = directory;
        this.port = port;
        this.process = process;
    }

    /**
     * Where the server's binaries are, or empty when they are not installed.
     * @param kind the kind of server
     * @return the directory of its binaries
     */
    public static Optional<Path> find(Kind kind) {
        if (kind == Kind.POSTGRESQL) {
            Path root = Path.of("/usr/lib/postgresql");
            if (Files.isDirectory(root)) {
                try (Stream<Path> versions = Files.list(root)) {
                    Optional<Path> newest = versions.map((version) -> version.resolve("bin"))
                            .filter((bin) -> Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("postgres")))
                            .max(Comparator.comparing(DatabaseServer::versionOf));
                    if (newest.isPresent()) {
                        return newest;
                    }
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }
            return onPath("initdb").filter((bin) -> Files.isExecutable(bin.resolve("postgres")));
        }
        Optional<Path> sbin = Files.isExecutable(Path.of("/usr/sbin/mariadbd")) ? Optional.of(Path.of("/usr/sbin")) : onPath("mariadbd");
        return sbin.filter((bin) -> installer(bin) != null);
    }

    /**
     * Starts a server of the given kind.
     * @param kind the kind of server
     * @return the running server, ready for connections
     * @throws IllegalStateException if its binaries are missing, or it does not start within a minute (with its log)
     */
    public static DatabaseServer start(Kind kind) {
        Path bin = find(kind).orElseThrow(() -> new IllegalStateException(kind + " is not installed (apt-get install "
                + ((kind == Kind.POSTGRESQL) ? "postgresql" : "mariadb-server") + ")"));
        try {
            Path directory = Files.createTempDirectory("redlock-" + kind.name().toLowerCase(java.util.Locale.ROOT));
            int port = RedisNode.freePort();
            Process process = (kind == Kind.POSTGRESQL) ? startPostgres(bin, directory, port) : startMariaDb(bin, directory, port);
            ProcessReaper.track(process, directory);
            DatabaseServer server = new DatabaseServer(kind, directory, port, process);
            server.awaitReady();
            return server;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + kind, ex);
        }
    }

    /**
     * The JDBC URL of the server's database ({@code postgres}, or MariaDB's {@code test}).
     * @return the URL, on 127.0.0.1 and the server's port
     */
    public String jdbcUrl() {
        return (this.kind == Kind.POSTGRESQL) ? "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres"
                : "jdbc:mariadb://127.0.0.1:" + this.port + "/test";
    }

    /**
     * The user to connect as; any password is accepted.
     * @return the user name
     */
    public String username() {
        return (this.kind == Kind.POSTGRESQL) ? "redlock" : "root";
    }

    /**
     * The server's kind.
     * @return the kind
     */
    public Kind kind() {
        return this.kind;
    }

    @Override
    public void close() {
        this.process.destroy();
        try {
            if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            this.process.destroyForcibly();
        }
        ProcessReaper.forget(this.process);
        delete(this.directory);
    }

    @Override
    public String toString() {
        return this.kind + " on 127.0.0.1:" + this.port;
    }

    private static Process startPostgres(Path bin, Path directory, int port) throws IOException {
        Path data = directory.resolve("data");
        asServerUser(directory);
        run(directory, command(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "redlock", "-A", "trust", "-E", "UTF8",
                "--no-sync"));
        return launch(directory, command(bin.resolve("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(port), "-k",
                directory.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=50"));
    }

    private static Process startMariaDb(Path bin, Path directory, int port) throws IOException {
        Path data = directory.resolve("data");
        List<String> user = isRoot() ? List.of("--user=root") : List.of();
        List<String> install = new ArrayList<>(List.of(String.valueOf(installer(bin)), "--no-defaults", "--datadir=" + data,
                "--auth-root-authentication-method=normal", "--skip-name-resolve"));
        install.addAll(user);
        run(directory, install);
        List<String> server = new ArrayList<>(List.of(bin.resolve("mariadbd").toString(), "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + directory.resolve("mariadb.sock"),
                "--pid-file=" + directory.resolve("mariadb.pid"), "--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin",
                "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0"));
        server.addAll(user);
        return launch(directory, server);
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                String log = log(this.directory);
                delete(this.directory);
                throw new IllegalStateException(this.kind + " exited with " + this.process.exitValue() + " before it answered; its log:\n" + log);
            }
            if (acceptsSessions()) {
                return;
            }
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
        throw new IllegalStateException(this + " did not accept connections within " + START_BOUND.toSeconds() + " s");
    }

    /**
     * Whether the server takes sessions now, not only connections: PostgreSQL listens (and refuses sessions with "the
     * database system is starting up") before it is ready, and says it is ready in its {@code postmaster.pid} (its
     * eighth line, {@code ready}); MariaDB logs "ready for connections" once it is.
     */
    private boolean acceptsSessions() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
        }
        catch (IOException ex) {
            return false; // not listening yet
        }
        try {
            if (this.kind == Kind.POSTGRESQL) {
                Path pid = this.directory.resolve("data").resolve("postmaster.pid");
                List<String> lines = Files.exists(pid) ? Files.readAllLines(pid, StandardCharsets.UTF_8) : List.of();
                return lines.size() >= 8 && lines.get(7).trim().equals("ready");
            }
            Path log = this.directory.resolve("server.log");
            return Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains("ready for connections");
        }
        catch (IOException ex) {
            return false; // being written
        }
    }

    private static @Nullable Path installer(Path bin) {
        for (Path directory : List.of(bin, Path.of("/usr/bin"), Path.of("/usr/local/bin"))) {
            for (String name : List.of("mariadb-install-db", "mysql_install_db")) {
                if (Files.isExecutable(directory.resolve(name))) {
                    return directory.resolve(name);
                }
            }
        }
        return null;
    }

    private static Optional<Path> onPath(String name) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(entry).resolve(name);
            if (Files.isExecutable(candidate)) {
                try {
                    return Optional.ofNullable(candidate.toRealPath().getParent());
                }
                catch (IOException ex) {
                    return Optional.ofNullable(candidate.getParent());
                }
            }
        }
        return Optional.empty();
    }

    /** The major version of {@code /usr/lib/postgresql/<version>/bin}. */
    private static int versionOf(Path bin) {
        Path version = bin.getParent();
        try {
            return (version != null) ? Integer.parseInt(String.valueOf(version.getFileName()).replaceAll("\\D.*", "")) : 0;
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The command as run: as {@code nobody} for PostgreSQL when this JVM is root (which PostgreSQL refuses). */
    private static List<String> command(String... command) {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"));
        }
        full.addAll(List.of(command));
        return full;
    }

    private static void asServerUser(Path directory) throws IOException {
        if (isRoot()) {
            run(directory, List.of("chown", "nobody:nogroup", directory.toString()));
        }
    }

    private static void run(Path directory, List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("setup.log").toFile()).start();
        try {
            if (!process.waitFor(START_BOUND.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not end within " + START_BOUND.toSeconds() + " s");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("Interrupted while running " + command, ex);
        }
        if (process.exitValue() != 0) {
            String log = log(directory);
            throw new IllegalStateException(String.join(" ", command) + " failed with " + process.exitValue() + ":\n" + log);
        }
    }

    private static Process launch(Path directory, List<String> command) throws IOException {
        return new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("server.log").toFile()).start();
    }

    private static String log(Path directory) {
        StringBuilder log = new StringBuilder();
        for (String name : List.of("setup.log", "server.log")) {
            Path file = directory.resolve(name);
            if (Files.exists(file)) {
                try {
                    String text = Files.readString(file, StandardCharsets.UTF_8);
                    log.append(text, Math.max(0, text.length() - 4000), text.length());
                }
                catch (IOException ex) {
                    log.append("(unreadable: ").append(ex).append(')');
                }
            }
        }
        return log.toString();
    }

    private static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException ex) {
            // best effort: a temporary directory
        }
    }

}
