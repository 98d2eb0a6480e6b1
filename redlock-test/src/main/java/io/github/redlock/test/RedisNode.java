package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

/**
 * One real {@code redis-server} process on a free loopback port, with faults to inject: {@link #kill()}
 * (SIGKILL), {@link #pause()} (SIGSTOP), {@link #resume()} (SIGCONT), {@link #restart()} (empty, on the same
 * port) and {@link #restartKeepingData(String...)} (a crash and recovery from the node's own files). The node
 * persists nothing unless a restart's options turn persistence on, and its process never outlives the JVM.
 */
public final class RedisNode implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private static final int REDIS_DEFAULT_PORT = 6379;

    private final ReentrantLock lock = new ReentrantLock();

    private final Path directory;

    private volatile int port;

    private volatile @Nullable Process process;

    private volatile boolean paused;

    /** While cut off: the connection that commands the node, and the one that takes its last client slot. */
    private volatile java.net.Socket @Nullable [] cutOff;

    /** Whether the port was ever served: from then on, restarts keep it. */
    private volatile boolean pinnedPort;

    /** The binary to run, or null for {@link RedisServerBinary#get()}. */
    private final @Nullable Path binary;

    /** Extra environment variables of the process, e.g. a preloaded library. */
    private final java.util.Map<String, String> environment;

    /** What the node runs as: a standalone server, a cluster node or a sentinel. */
    private final Launch launchSpec;

    /** The network namespace the node runs in, or null for this one (on loopback). */
    private final @Nullable NetworkHost host;

    private RedisNode(Path directory) {
        this(directory, null, java.util.Map.of(), Launch.STANDALONE);
    }

    private RedisNode(Path directory, @Nullable Path binary, java.util.Map<String, String> environment, Launch launchSpec) {
        this(directory, binary, environment, launchSpec, null);
    }

    private RedisNode(Path directory, @Nullable Path binary, java.util.Map<String, String> environment, Launch launchSpec,
            @Nullable NetworkHost host) {
        this.directory = directory;
        this.binary = binary;
        this.environment = java.util.Map.copyOf(environment);
        this.launchSpec = launchSpec;
        this.host = host;
    }

    /**
     * How a node is launched beyond a standalone server, kept across restarts: arguments that come first (a
     * configuration file and {@code --sentinel}), options after the harness's own, the log line that says the node
     * listens, and how a free port is chosen (a cluster node also needs its port plus 10000 for the cluster bus).
     */
    record Launch(List<String> leadingArguments, List<String> options, String readyLine, IntSupplier freePort) {

        static final Launch STANDALONE = new Launch(List.of(), List.of(), "Ready to accept connections", RedisNode::freePort);

        Launch {
            leadingArguments = List.copyOf(leadingArguments);
            options = List.copyOf(options);
        }

    }

    /**
     * Starts a node with the {@code redis-server} binary shipped in the {@code com.github.codemonstur:embedded-redis}
     * artifact and extra environment variables, kept across restarts. The shipped binary allocates with the C
     * library's {@code malloc}, so that a library such as {@code libfaketime} can be preloaded into it
     * ({@code LD_PRELOAD}); the jemalloc build of Debian's {@code redis-server} hangs at start under it.
     * @param environment variables to add to the process's environment
     * @return the running node
     * @throws IllegalStateException when the binary cannot be extracted or does not start
     */
    public static RedisNode startShipped(java.util.Map<String, String> environment) {
        RedisNode node = new RedisNode(createDirectory(), RedisServerBinary.extractShipped(), environment, Launch.STANDALONE);
        node.launch(0);
        node.awaitReady();
        return node;
    }

    /**
     * Starts a node in a network namespace of its own ({@link NetworkHost}), listening on every address of it, and waits
     * until it answers {@code PING} at the harness's address. {@link #uri()} and {@link #hostAndPort()} name that address;
     * each client reaches the node at {@link NetworkHost#addressFor(int)} on the same {@link #port()}, over a link that
     * {@link NetworkHost#cut(int)} cuts alone. The node stays in the namespace across restarts; closing it does not close
     * the host.
     * @param host the namespace to run in
     * @param environment variables to add to the process's environment, e.g. a preloaded library
     * @param shipped whether to run the binary shipped in {@code embedded-redis} (as {@link #startShipped}) rather than
     * this machine's
     * @return the running node
     * @throws IllegalStateException when it does not start
     */
    public static RedisNode startIn(NetworkHost host, java.util.Map<String, String> environment, boolean shipped) {
        RedisNode node = new RedisNode(createDirectory(), shipped ? RedisServerBinary.extractShipped() : null, environment,
                Launch.STANDALONE, host);
        node.launch(0);
        node.awaitReady();
        return node;
    }

    /**
     * Starts a node on a free loopback port and waits until it answers {@code PING}.
     * @return the running node
     * @throws IllegalStateException when {@code redis-server} cannot be found or does not start
     */
    public static RedisNode start() {
        RedisNode node = new RedisNode(createDirectory());
        node.launch(0);
        node.awaitReady();
        return node;
    }

    /**
     * Starts a node with a given server binary, kept across restarts, on a free loopback port, and waits until it
     * answers {@code PING}: e.g. {@code valkey-server} for some nodes of a list and {@code redis-server} for the others.
     * @param binary the server executable, a {@code redis-server} or {@code valkey-server} (5 or later)
     * @return the running node
     * @throws IllegalArgumentException when {@code binary} is not an executable file
     * @throws IllegalStateException when it does not start
     */
    public static RedisNode start(Path binary) {
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new IllegalArgumentException(binary + " is not an executable file; give the path of a redis-server or valkey-server");
        }
        RedisNode node = new RedisNode(createDirectory(), binary, java.util.Map.of(), Launch.STANDALONE);
        node.launch(0);
        node.awaitReady();
        return node;
    }

    /**
     * Starts a node that serves TLS on a port of its own ({@link #tlsUri()}) with the server certificate of
     * {@code certificates}, beside its plain port (which the harness's own commands use), and waits until it answers.
     * Clients are not asked for certificates. Needs a server built with TLS (Debian's is, and so is the shipped 6.2 binary).
     * @param certificates the certificates to serve
     * @return the running node
     * @throws IllegalStateException when it does not start, e.g. a server built without TLS
     */
    public static RedisNode startTls(TlsCertificates certificates) {
        List<String> options = List.of("--tls-port", String.valueOf(freePort()), "--tls-cert-file", certificates.serverCertificate().toString(),
                "--tls-key-file", certificates.serverKey().toString(), "--tls-ca-cert-file", certificates.authority().toString(),
                "--tls-auth-clients", "no");
        RedisNode node = new RedisNode(createDirectory(), null, java.util.Map.of(),
                new Launch(List.of(), options, Launch.STANDALONE.readyLine(), RedisNode::freePort));
        node.launch(0);
        node.awaitReady();
        return node;
    }

    /**
     * Returns the node's TLS URI, {@code rediss://127.0.0.1:<tls port>}, for a node started by {@link #startTls}.
     * @return the URI
     * @throws IllegalStateException when the node serves no TLS
     */
    public String tlsUri() {
        int index = this.launchSpec.options().indexOf("--tls-port");
        if (index < 0) {
            throw new IllegalStateException(this + " serves no TLS: start it with RedisNode.startTls(certificates)");
        }
        return "rediss://" + address() + ":" + this.launchSpec.options().get(index + 1);
    }

    /**
     * Starts a node without waiting for it; {@link #awaitReady()} waits. Lets a caller start many at once.
     */
    static RedisNode launchUnready() {
        RedisNode node = new RedisNode(createDirectory());
        node.launch(0);
        return node;
    }

    /**
     * Starts a node of a cluster or a Sentinel group in a working directory of {@link #createDirectory()} without
     * waiting for it; {@link #awaitReady()} waits. The directory is the node's from then on ({@link #close()} deletes it).
     */
    static RedisNode launchUnready(Path directory, Launch launchSpec) {
        RedisNode node = new RedisNode(directory, null, java.util.Map.of(), launchSpec);
        node.launch(0);
        return node;
    }

    /**
     * Returns the loopback port the node listens on; it stays the same across {@link #restart()}.
     * @return the port
     */
    public int port() {
        return this.port;
    }

    /**
     * Returns the node's URI as Lettuce understands it, e.g. {@code redis://127.0.0.1:41234} (the harness's address of
     * its {@link NetworkHost} for a node started in one).
     * @return the URI
     */
    public String uri() {
        return "redis://" + address() + ":" + this.port;
    }

    /**
     * Returns {@code 127.0.0.1:port} (or the harness's address of its {@link NetworkHost}), the form in which lock
     * errors name a node.
     * @return host and port
     */
    public String hostAndPort() {
        return address() + ":" + this.port;
    }

    /**
     * Returns the network namespace the node runs in.
     * @return its host, or null when it runs on this machine's loopback
     */
    public @Nullable NetworkHost host() {
        return this.host;
    }

    private String address() {
        return (this.host != null) ? this.host.address() : "127.0.0.1";
    }

    /**
     * Returns whether the process is alive (it may be paused).
     * @return {@code true} while the process runs
     */
    public boolean isRunning() {
        Process current = this.process;
        return current != null && current.isAlive();
    }

    /**
     * Returns the process id of the server running now: a restart starts another process, with another id. For cuts of
     * this server's own traffic ({@link ProcessCuts}), e.g. its cluster bus.
     * @return the pid
     * @throws IllegalStateException when the node is not running
     */
    public long pid() {
        Process current = this.process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(this + " is not running: no process to name");
        }
        return current.pid();
    }

    /**
     * Returns whether the node was paused with {@link #pause()} and not resumed since.
     * @return {@code true} while paused
     */
    public boolean isPaused() {
        return this.paused;
    }

    /**
     * Kills the process with SIGKILL, as a crash would; the node stays down until {@link #restart()}.
     */
    public void kill() {
        this.lock.lock();
        try {
            Process current = this.process;
            if (current != null) {
                current.destroyForcibly();
                await(current);
                ProcessReaper.forget(current);
                this.process = null;
            }
            this.paused = false;
            closeCutOff(); // a restarted node accepts clients again
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, as in a long GC
     * pause or a hung host. {@link #resume()} undoes it.
     */
    public void pause() {
        signal("STOP");
        this.paused = true;
    }

    /**
     * Resumes a paused process with SIGCONT; commands it received meanwhile are then executed.
     */
    public void resume() {
        signal("CONT");
        this.paused = false;
    }

    /**
     * Kills the node if it runs, then starts it again empty on the same port and waits until it answers.
     */
    public void restart() {
        restart(new String[0]);
    }

    /**
     * Kills the node if it runs, deletes whatever it persisted (its RDB snapshot and append-only files), then starts
     * it again empty on the same port with extra server options, which override the harness's own (e.g.
     * {@code "--appendonly", "yes", "--appendfsync", "always"}), and waits until it answers. The options last until
     * the next restart. It is a node that came back without its data: a new disk, a container without a volume.
     * @param serverOptions {@code redis-server} command-line options, each name and value an element
     */
    public void restart(String... serverOptions) {
        relaunch(true, serverOptions);
    }

    /**
     * Kills the node if it runs (SIGKILL: a crash, nothing flushed on the way out), then starts it again on the same
     * port and working directory, so that it loads what it persisted there, with the given server options, and
     * waits until it answers. A node that ran with {@code "--appendonly", "yes", "--appendfsync", "always"} comes
     * back with every write it acknowledged; one that persisted nothing comes back empty.
     * @param serverOptions {@code redis-server} command-line options, each name and value an element; pass the
     * options the node ran with (at least its persistence options), or it does not load its files
     */
    public void restartKeepingData(String... serverOptions) {
        relaunch(false, serverOptions);
    }

    private void relaunch(boolean empty, String... serverOptions) {
        this.lock.lock();
        try {
            kill();
            if (empty) {
                deleteData();
            }
            launch(this.port, serverOptions);
            awaitReady();
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Deletes the node's persisted data: the RDB snapshot and the append-only files of Redis 6 and 7. */
    private void deleteData() {
        for (String name : List.of("dump.rdb", "appendonly.aof", "appendonlydir")) {
            deleteRecursively(this.directory.resolve(name));
        }
    }

    private static void deleteRecursively(Path path) {
        if (Files.isDirectory(path)) {
            try (var files = Files.list(path)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    deleteRecursively(file);
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Cannot delete " + path, ex);
            }
        }
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot delete " + path, ex);
        }
    }

    /**
     * Cuts the node off from its clients, as a network partition would: every client connection is dropped
     * and new ones are refused ({@code maxclients} is lowered to the two connections this method keeps), while
     * the server runs on with its keys. {@link #heal()} undoes it. Clients see a disconnect, then failing
     * reconnects; this harness's own commands to the node fail meanwhile.
     */
    public void cutOff() {
        this.lock.lock();
        try {
            if (this.cutOff != null) {
                return;
            }
            java.net.Socket control = Resp.open(address(), this.port, 2000);
            java.net.Socket filler = Resp.open(address(), this.port, 2000);
            // A subscribed connection is of type pubsub, so the kill of every normal client below spares it.
            Resp.command(filler, "SUBSCRIBE", "redlock-test:cut-off");
            expectOk(Resp.command(control, "CONFIG", "SET", "maxclients", "2"), "CONFIG SET maxclients");
            String killed = Resp.command(control, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
            if (!killed.startsWith(":")) {
                throw new IllegalStateException("CLIENT KILL on " + hostAndPort() + " answered " + killed);
            }
            this.cutOff = new java.net.Socket[] { control, filler };
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Node " + hostAndPort() + " could not be cut off", ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Ends a {@link #cutOff()}: clients may connect again. Does nothing when the node is not cut off.
     */
    public void heal() {
        this.lock.lock();
        try {
            java.net.Socket[] sockets = this.cutOff;
            if (sockets == null) {
                return;
            }
            try {
                expectOk(Resp.command(sockets[0], "CONFIG", "SET", "maxclients", "10000"), "CONFIG SET maxclients");
            }
            finally {
                closeCutOff();
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Node " + hostAndPort() + " could not be healed", ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    private void closeCutOff() {
        java.net.Socket[] sockets = this.cutOff;
        this.cutOff = null;
        if (sockets != null) {
            for (java.net.Socket socket : sockets) {
                try {
                    socket.close();
                }
                catch (IOException ex) {
                    // Already closed by the killed server.
                }
            }
        }
    }

    private void expectOk(String reply, String command) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException(command + " on " + hostAndPort() + " answered " + reply);
        }
    }

    /**
     * Deletes every key of the running node ({@code FLUSHALL}).
     */
    public void flushAll() {
        String reply = send("FLUSHALL");
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("FLUSHALL on " + hostAndPort() + " answered " + reply);
        }
    }

    /**
     * Stops the node for good (SIGKILL) and deletes its working directory.
     */
    @Override
    public void close() {
        kill();
        try {
            deleteRecursively(this.directory);
        }
        catch (UncheckedIOException ex) {
            // Best effort: the directory is in the temporary folder.
        }
    }

    @Override
    public String toString() {
        return "RedisNode[" + hostAndPort() + (isRunning() ? (this.paused ? ", paused" : "") : ", down") + "]";
    }

    /**
     * Waits until the node answers {@code PING}; if the chosen port was taken meanwhile, moves to another
     * free port (only before the node was ever ready).
     */
    void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        int attempts = 0;
        while (true) {
            Process current = this.process;
            if (current == null || !current.isAlive()) {
                String log = readLog();
                if (log.contains("Address already in use") && ++attempts < 5) {
                    if (this.pinnedPort) {
                        sleep(200); // the old process's socket may linger a moment
                    }
                    launch(this.pinnedPort ? this.port : 0);
                    continue;
                }
                throw new IllegalStateException("redis-server (" + ((this.binary != null) ? this.binary : RedisServerBinary.get()) + ") exited on port "
                        + this.port + "; its log ends with:\n" + tail(log));
            }
            try {
                // Our own log must say so: when two nodes drew the same free port, the one that lost the bind
                // is still alive for a moment, and the PING would be answered by the other one.
                if (readLog().contains(this.launchSpec.readyLine()) && Resp.command(address(), this.port, 200, "PING").equals("+PONG")) {
                    this.pinnedPort = true;
                    return;
                }
            }
            catch (IOException ex) {
                // Not listening yet.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server on port " + this.port + " did not answer PING within "
                        + START_TIMEOUT.toSeconds() + " s; its log ends with:\n" + tail(readLog()));
            }
            sleep(10);
        }
    }

    private void launch(int requestedPort, String... serverOptions) {
        int chosen = (requestedPort != 0) ? requestedPort : this.launchSpec.freePort().getAsInt();
        Path binary = (this.binary != null) ? this.binary : RedisServerBinary.get();
        List<String> command = new java.util.ArrayList<>();
        if (this.host != null) {
            command.addAll(this.host.exec());
        }
        command.add(binary.toString());
        command.addAll(this.launchSpec.leadingArguments());
        command.addAll(List.of("--port", String.valueOf(chosen),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--daemonize", "no", "--dir", this.directory.toString(), "--logfile", ""));
        if (this.host != null) {
            command.addAll(List.of("--bind", "0.0.0.0")); // every address of its namespace: the harness's and each client's
        }
        command.addAll(this.launchSpec.options());
        command.addAll(List.of(serverOptions)); // later options win
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(this.directory.resolve("redis.log").toFile());
        builder.environment().putAll(this.environment);
        try {
            Process started = builder.start();
            ProcessReaper.track(started, this.directory);
            this.process = started;
            this.port = chosen;
            this.paused = false;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + binary, ex);
        }
    }

    /**
     * Sends a command and returns its whole reply, as {@link Resp#call(int, int, String...)} reads it.
     * @throws UncheckedIOException when the node does not answer within 2 s
     */
    @Nullable Object call(String... command) {
        try {
            return Resp.call(address(), this.port, 2000, command);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Node " + hostAndPort() + " did not answer " + String.join(" ", command), ex);
        }
    }

    private String send(String... command) {
        try {
            return Resp.command(address(), this.port, 2000, command);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Node " + hostAndPort() + " did not answer " + command[0], ex);
        }
    }

    private void signal(String signal) {
        Process current = this.process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException("Node " + hostAndPort() + " is not running; restart() it first");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(current.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + current.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot send SIG" + signal + " to " + hostAndPort(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signal, ex);
        }
    }

    private String readLog() {
        try {
            return Files.readString(this.directory.resolve("redis.log"));
        }
        catch (IOException ex) {
            return "";
        }
    }

    private static String tail(String log) {
        String[] lines = log.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 10), lines.length));
    }

    private static void await(Process process) {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + process.pid() + " did not exit after SIGKILL");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server to exit", ex);
        }
    }

    static int freePort() {
        for (int i = 0; i < 20; i++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (port != REDIS_DEFAULT_PORT) {
                    return port;
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Cannot find a free loopback port", ex);
            }
        }
        throw new IllegalStateException("Cannot find a free loopback port");
    }

    static Path createDirectory() {
        try {
            return Files.createTempDirectory("redlock-redis-node");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot create a working directory for redis-server", ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
        }
    }

}
