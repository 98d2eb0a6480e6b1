package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * A host of its own for one server on this machine: a Linux network namespace that this harness creates, joined to
 * the namespace the tests run in by veth pairs, one link for the harness's own commands and one per client, so that a
 * network partition between one client and the server can be made while every other client still reaches it
 * ({@link #cut(int)}, {@link #heal(int)}). A cut link drops every packet silently, both ways: connections hang until their
 * timeouts and new ones are not answered, as across a real partition, not refused.
 * <p>
 * Client {@code c} reaches the server at {@link #addressFor(int) addressFor(c)}; the harness at {@link #address()}, a
 * link that is never cut. The clients themselves stay in the tests' namespace, where they still reach every other
 * server (a Sentinel group, a cluster, a database) on loopback; each one's path to this host is a link of its own.
 * Needs root and {@code ip} (iproute2): {@link #available()} says whether namespaces can be made here. Addresses are in
 * 10.0.0.0/8, a /30 per link, in a /16 that no interface of this machine used when this JVM made its first host (JVMs
 * choose one at a time, under a file lock in the temporary directory); names carry this JVM's process id, so that runs
 * side by side do not meet. {@link #close()} deletes the namespace, which takes its links with it; a shutdown hook
 * deletes those still open when the JVM exits.
 * <p>
 * Thread-safety: {@link #cut} and {@link #heal} may be called from any thread.
 */
public final class NetworkHost implements AutoCloseable {

    /** The most client links one host has (a /30 each in a /24, the harness's first). */
    public static final int MAX_CLIENTS = 62;

    private static final AtomicInteger HOSTS = new AtomicInteger();

    private static final ReentrantLock CREATION = new ReentrantLock();

    private static volatile @Nullable Boolean available;

    /** The second octet of this JVM's block, chosen at the first host. */
    private static volatile int block = -1;

    /** The hosts not closed yet, which a shutdown hook deletes: a namespace outlives the JVM that made it. */
    private static final Set<NetworkHost> OPEN = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> List.copyOf(OPEN).forEach(NetworkHost::close), "network-hosts-cleanup"));
    }

    private final String name;

    private final String subnet;

    private final int clients;

    private final boolean[] cut;

    private final ReentrantLock lock = new ReentrantLock();

    private NetworkHost(String name, String subnet, int clients) {
        this.name = name;
        this.subnet = subnet;
        this.clients = clients;
        this.cut = new boolean[clients];
    }

    /**
     * Whether network namespaces can be made here: run as root with {@code ip} (iproute2) installed. Probes once, by
     * creating and deleting a namespace.
     * @return {@code true} when {@link #create} can work
     */
    public static boolean available() {
        Boolean known = available;
        if (known == null) {
            String probe = "rlprobe" + ProcessHandle.current().pid();
            known = Commands.run(false, "ip", "netns", "add", probe) && Commands.run(false, "ip", "netns", "delete", probe);
            available = known;
        }
        return known;
    }

    /**
     * Creates a host with a link for the harness and one for each of {@code clients} clients, all up.
     * @param clients how many clients reach the host, each over its own link (1 to {@link #MAX_CLIENTS})
     * @return the host
     * @throws IllegalArgumentException when {@code clients} is out of range
     * @throws IllegalStateException when namespaces cannot be made here ({@link #available()}) or a step fails
     */
    public static NetworkHost create(int clients) {
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new IllegalArgumentException("A host has 1 to " + MAX_CLIENTS + " client links; was asked for " + clients);
        }
        if (!available()) {
            throw new IllegalStateException("Network namespaces cannot be made here: run as root with iproute2 installed "
                    + "(ip netns add), or skip the partition tests");
        }
        CREATION.lock();
        try {
            int index = HOSTS.getAndIncrement();
            if (index > 255) {
                throw new IllegalStateException("This JVM made 256 hosts already; its address block is used up");
            }
            String name = "rl" + (ProcessHandle.current().pid() % 100_000) + "h" + index;
            if (block >= 0) {
                return build(name, index, clients);
            }
            // Another JVM may be choosing its block now: the choice holds until this host's addresses show it as used.
            try (FileChannel channel = FileChannel.open(Path.of(System.getProperty("java.io.tmpdir"), "redlock-network-hosts.lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
                block = freeBlock();
                return build(name, index, clients);
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Cannot lock the choice of an address block", ex);
            }
        }
        finally {
            CREATION.unlock();
        }
    }

    private static NetworkHost build(String name, int index, int clients) {
        NetworkHost host = new NetworkHost(name, "10." + block + "." + index + ".", clients);
        OPEN.add(host);
        try {
            host.build();
        }
        catch (RuntimeException ex) {
            host.close();
            throw ex;
        }
        return host;
    }

    /**
     * Returns the address at which the harness reaches the host, over a link that is never cut.
     * @return an IPv4 address
     */
    public String address() {
        return hostAddress(0);
    }

    /**
     * Returns the address at which client {@code client} reaches the host, over its own link.
     * @param client the client's index, from 0
     * @return an IPv4 address
     */
    public String addressFor(int client) {
        checkClient(client);
        return hostAddress(client + 1);
    }

    /**
     * Cuts client {@code client}'s link: its packets to and from the host are dropped silently until {@link #heal(int)}.
     * Does nothing when the link is cut already.
     * @param client the client's index, from 0
     */
    public void cut(int client) {
        setLink(client, false);
    }

    /**
     * Restores client {@code client}'s link. Does nothing when it is not cut.
     * @param client the client's index, from 0
     */
    public void heal(int client) {
        setLink(client, true);
    }

    /**
     * Returns whether client {@code client}'s link is cut.
     * @param client the client's index, from 0
     * @return {@code true} between {@link #cut} and {@link #heal}
     */
    public boolean isCut(int client) {
        checkClient(client);
        this.lock.lock();
        try {
            return this.cut[client];
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Returns how many client links the host has.
     * @return the count given to {@link #create}
     */
    public int clients() {
        return this.clients;
    }

    /**
     * Returns the namespace's name, as {@code ip netns} lists it.
     * @return the name
     */
    public String name() {
        return this.name;
    }

    /** The words that run a command inside the namespace: {@code ip netns exec <name>}, which execs it (same process). */
    List<String> exec() {
        return List.of("ip", "netns", "exec", this.name);
    }

    /** Deletes the namespace with its links; a server still running in it loses them. */
    @Override
    public void close() {
        OPEN.remove(this);
        Commands.run(false, "ip", "netns", "delete", this.name);
    }

    @Override
    public String toString() {
        return "NetworkHost[" + this.name + " at " + address() + "]";
    }

    private void build() {
        Commands.run(true, "ip", "netns", "add", this.name);
        Commands.run(true, "ip", "-n", this.name, "link", "set", "lo", "up");
        for (int link = 0; link <= this.clients; link++) {
            String outside = this.name + "o" + link;
            String inside = "h" + link;
            Commands.run(true, "ip", "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", this.name);
            Commands.run(true, "ip", "addr", "add", this.subnet + (4 * link + 1) + "/30", "dev", outside);
            Commands.run(true, "ip", "-n", this.name, "addr", "add", hostAddress(link) + "/30", "dev", inside);
            Commands.run(true, "ip", "link", "set", outside, "up");
            Commands.run(true, "ip", "-n", this.name, "link", "set", inside, "up");
        }
    }

    private String hostAddress(int link) {
        return this.subnet + (4 * link + 2);
    }

    /**
     * Sets the link's inside end down or up: with the inside end down, the outside end loses its carrier and drops what
     * is sent to it, and the host drops what it would send, so nothing is refused, only lost.
     */
    private void setLink(int client, boolean up) {
        checkClient(client);
        this.lock.lock();
        try {
            if (this.cut[client] != up) {
                return;
            }
            Commands.run(true, "ip", "-n", this.name, "link", "set", "h" + (client + 1), up ? "up" : "down");
            this.cut[client] = !up;
        }
        finally {
            this.lock.unlock();
        }
    }

    private void checkClient(int client) {
        if (client < 0 || client >= this.clients) {
            throw new IllegalArgumentException("Host " + this.name + " has client links 0 to " + (this.clients - 1) + "; was asked for " + client);
        }
    }

    /** A second octet in 10.64 to 10.127 that no address of this machine uses. */
    private static int freeBlock() {
        String used = Commands.output("ip", "-4", "-o", "addr", "show");
        List<Integer> free = new ArrayList<>();
        for (int b = 64; b < 128; b++) {
            if (!used.contains(" 10." + b + ".")) {
                free.add(b);
            }
        }
        if (free.isEmpty()) {
            throw new IllegalStateException("Every block 10.64.0.0/16 to 10.127.0.0/16 is in use on this machine");
        }
        return free.get(ThreadLocalRandom.current().nextInt(free.size()));
    }

}
