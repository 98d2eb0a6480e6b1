package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Silent cuts between one process of this machine and chosen TCP ports, on loopback too: what a network namespace per
 * server ({@link NetworkHost}) cannot give when the servers announce one address to every client, as the nodes of a
 * Redis Cluster do. A client process cut from all of a cluster's servers but one, or a server cut from its peers' cluster
 * bus, while every other process still reaches them.
 * <p>
 * Each process {@link #join joins} a {@code net_cls} control group of its own, with a class id; an nftables table of this
 * JVM drops, in the output hook, that class's packets to the ports {@link #cut}, and marks their connections, whose
 * packets the input hook then drops too. A cut is silent both ways, as across a real partition: new connections are
 * neither answered nor refused, open ones hang until their timeouts. {@link #heal} removes the rules: an open connection
 * carries on (TCP sends again what was dropped), a new one is answered. Packets that were under way when the cut began
 * may still arrive.
 * <p>
 * Needs root, {@code nft} (nftables) and the {@code net_cls} controller of cgroup v1, which this class mounts at
 * {@code /sys/fs/cgroup/net_cls} when it is missing: {@link #available()} says whether all works here. The table, the
 * groups and the class ids carry this JVM's process id, so that runs side by side do not meet; {@link #close()} deletes
 * them (its members go back to the root group), and a shutdown hook deletes those still open when the JVM exits.
 * <p>
 * Thread-safety: every method may be called from any thread.
 */
public final class ProcessCuts implements AutoCloseable {

    private static final Path NET_CLS = Path.of("/sys/fs/cgroup/net_cls");

    private static final ReentrantLock PROBE = new ReentrantLock();

    private static volatile @Nullable Boolean available;

    /** The cuts not closed yet, which a shutdown hook deletes: the table and the groups outlive the JVM that made them. */
    private static final Set<ProcessCuts> OPEN = ConcurrentHashMap.newKeySet();

    private static final AtomicInteger CREATED = new AtomicInteger();

    /** The largest minor number, 16 bits: {@link #join} refuses a member beyond it. */
    private static final int MAX_MINOR = 0xFFFF;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> List.copyOf(OPEN).forEach(ProcessCuts::close), "process-cuts-cleanup"));
    }

    private final String table;

    private final Path groups;

    /** The class ids' major number, the same for every member of this instance. */
    private final int major;

    private final ReentrantLock lock = new ReentrantLock();

    /** Per process id, the member's minor number (its class id's), in the order they joined. */
    private final Map<Long, Integer> members = new LinkedHashMap<>();

    /** Per process id, when the member's process started, if the system says: another process under its id is not it. */
    private final Map<Long, Optional<Instant>> started = new HashMap<>();

    /** The groups of members that exited which could not be deleted at once: {@link #close()} tries again. */
    private final List<Path> leftovers = new ArrayList<>();

    /**
     * The minor number the last member got. A minor number is never given twice, so that the rules of a member that
     * exited (their chains emptied, their class id in no group any more) never match a later one.
     */
    private int lastMinor;

    /** Per process id, the ports it is cut from now; absent when it is not cut. */
    private final Map<Long, int[]> cuts = new LinkedHashMap<>();

    private boolean closed;

    private ProcessCuts(String table, Path groups, int major) {
        this.table = table;
        this.groups = groups;
        this.major = major;
    }

    /**
     * Whether processes can be cut here: run as root, with {@code nft} and the {@code net_cls} controller (mounted if it
     * is not). Probes once, by making and deleting a table.
     * @return {@code true} when {@link #create} can work
     */
    public static boolean available() {
        Boolean known = available;
        if (known != null) {
            return known;
        }
        PROBE.lock();
        try {
            known = available;
            if (known == null) {
                String probe = "rlprobe" + ProcessHandle.current().pid();
                known = mountNetCls() && Commands.run(false, "nft", "add", "table", "inet", probe) && Commands.run(false, "nft", "delete", "table", "inet", probe);
                available = known;
            }
            return known;
        }
        finally {
            PROBE.unlock();
        }
    }

    /**
     * Makes an empty set of cuts: its table (two chains, no rule) and its group, with no member yet.
     * @return the cuts, to close when done
     * @throws IllegalStateException when processes cannot be cut here ({@link #available()}) or a step fails
     */
    public static ProcessCuts create() {
        if (!available()) {
            throw new IllegalStateException("Processes cannot be cut here: run as root with nftables installed (apt-get install "
                    + "nftables) and the net_cls cgroup controller, or skip the tests that need it");
        }
        int index = CREATED.getAndIncrement();
        long pid = ProcessHandle.current().pid();
        String name = "rlcuts" + (pid % 100_000) + "n" + index;
        // A major number of this JVM and instance: two JVMs' rules never match each other's members (16 bits, not 0).
        int major = 0x1000 + (int) ((pid * 31 + index) % 0xE000);
        ProcessCuts cuts = new ProcessCuts(name, NET_CLS.resolve(name), major);
        OPEN.add(cuts);
        try {
            Files.createDirectories(cuts.groups);
            nft("add table inet " + name);
            nft("add chain inet " + name + " out { type filter hook output priority 0; }");
            nft("add chain inet " + name + " in { type filter hook input priority 0; }");
        }
        catch (IOException ex) {
            cuts.close();
            throw new UncheckedIOException("Cannot make the group " + cuts.groups, ex);
        }
        catch (RuntimeException ex) {
            cuts.close();
            throw ex;
        }
        return cuts;
    }

    /**
     * Moves a process (every thread of it) into a group of its own, so that it can be cut; its sockets, open ones
     * included, carry the group's class id from then on. Does nothing for a member already. Members that exited are
     * let go first (their cuts end, their groups are deleted): a process restarted under the same id is a new member.
     * @param pid the process id, e.g. {@link Process#pid()}
     * @throws IllegalStateException when the process is gone or a step fails
     */
    public void join(long pid) {
        this.lock.lock();
        try {
            checkOpen();
            forgetExited();
            if (this.members.containsKey(pid)) {
                return;
            }
            if (this.lastMinor == MAX_MINOR) {
                throw new IllegalStateException("These cuts had " + MAX_MINOR + " members already: create another ProcessCuts");
            }
            int minor = ++this.lastMinor;
            Path group = this.groups.resolve("p" + pid);
            Files.createDirectories(group);
            Files.writeString(group.resolve("net_cls.classid"), Long.toString(classId(minor)));
            Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
            // Each member's rules live in two chains of their own, jumped to by its class id and its mark, emptied by a heal.
            nft("add chain inet " + this.table + " out" + minor);
            nft("add chain inet " + this.table + " in" + minor);
            nft("add rule inet " + this.table + " out meta cgroup " + classId(minor) + " jump out" + minor);
            nft("add rule inet " + this.table + " in ct mark " + classId(minor) + " jump in" + minor);
            this.members.put(pid, minor);
            this.started.put(pid, startOf(pid));
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot move process " + pid + " into a group of its own (is it still running?)", ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Cuts a member from the given ports of this machine (any address): its packets to them are dropped, and the packets
     * of those connections to it too, until {@link #heal}. A cut that is on already is replaced by this one.
     * @param pid a process that {@link #join joined}
     * @param ports the TCP ports it may no longer reach, at least one
     * @throws IllegalArgumentException when the process did not join, or no port is given
     */
    public void cut(long pid, int... ports) {
        if (ports.length == 0) {
            throw new IllegalArgumentException("Name at least one port to cut process " + pid + " from");
        }
        this.lock.lock();
        try {
            int minor = member(pid);
            flush(minor);
            String set = Arrays.stream(ports).mapToObj(Integer::toString).collect(Collectors.joining(", ", "{ ", " }"));
            nft("add rule inet " + this.table + " out" + minor + " tcp dport " + set + " ct mark set " + classId(minor) + " drop");
            nft("add rule inet " + this.table + " in" + minor + " drop");
            this.cuts.put(pid, ports.clone());
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Ends a member's cut; open connections carry on. Does nothing when it is not cut.
     * @param pid a process that {@link #join joined}
     * @throws IllegalArgumentException when the process did not join
     */
    public void heal(long pid) {
        this.lock.lock();
        try {
            int minor = member(pid);
            if (this.cuts.remove(pid) != null) {
                flush(minor);
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Ends every member's cut. */
    public void healAll() {
        this.lock.lock();
        try {
            for (Long pid : new ArrayList<>(this.cuts.keySet())) {
                heal(pid);
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Returns the ports a member is cut from now.
     * @param pid a process that {@link #join joined}
     * @return the ports, empty when it is not cut
     * @throws IllegalArgumentException when the process did not join
     */
    public int[] cutPorts(long pid) {
        this.lock.lock();
        try {
            member(pid);
            int[] ports = this.cuts.get(pid);
            return (ports != null) ? ports.clone() : new int[0];
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Deletes the table (every cut ends) and the groups, whose members still running go back to the root group. Never
     * throws; a second call does nothing.
     */
    @Override
    public void close() {
        this.lock.lock();
        try {
            if (this.closed) {
                return;
            }
            this.closed = true;
            OPEN.remove(this);
            Commands.run(false, "nft", "delete", "table", "inet", this.table);
            for (Path group : this.leftovers) {
                try {
                    Files.deleteIfExists(group);
                }
                catch (IOException ex) {
                    // Still held by the kernel: deleting the parent below fails too, and the group stays empty.
                }
            }
            for (Long pid : this.members.keySet()) {
                try {
                    Files.writeString(NET_CLS.resolve("cgroup.procs"), Long.toString(pid));
                }
                catch (IOException ex) {
                    // Gone already: its group is empty.
                }
                try {
                    Files.deleteIfExists(this.groups.resolve("p" + pid));
                }
                catch (IOException ex) {
                    // A process that could not be moved out keeps its group until it exits.
                }
            }
            try {
                Files.deleteIfExists(this.groups);
            }
            catch (IOException ex) {
                // As above.
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ProcessCuts[" + this.table + ", members " + this.members.keySet() + ", cut " + this.cuts.keySet() + "]";
    }

    private long classId(int minor) {
        return ((long) this.major << 16) | minor;
    }

    private int member(long pid) {
        checkOpen();
        Integer minor = this.members.get(pid);
        if (minor == null) {
            throw new IllegalArgumentException("Process " + pid + " did not join these cuts: call join(" + pid + ") first");
        }
        return minor;
    }

    /**
     * Lets go of the members that exited (their process is gone, or another one runs under its id): their chains are
     * emptied, their cuts forgotten, their (empty) groups deleted.
     */
    private void forgetExited() {
        for (Iterator<Map.Entry<Long, Integer>> members = this.members.entrySet().iterator(); members.hasNext();) {
            Map.Entry<Long, Integer> member = members.next();
            long pid = member.getKey();
            Optional<Instant> started = this.started.get(pid);
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && startOf(pid).equals(started)) {
                continue;
            }
            if (this.cuts.remove(pid) != null) {
                flush(member.getValue());
            }
            members.remove();
            this.started.remove(pid);
            Path group = this.groups.resolve("p" + pid);
            try {
                Files.deleteIfExists(group);
            }
            catch (IOException ex) {
                this.leftovers.add(group); // the kernel still holds it (its last task exiting)
            }
        }
    }

    /** When the process started, if the system says. */
    private static Optional<Instant> startOf(long pid) {
        return ProcessHandle.of(pid).flatMap((process) -> process.info().startInstant());
    }

    private void flush(int minor) {
        nft("flush chain inet " + this.table + " out" + minor);
        nft("flush chain inet " + this.table + " in" + minor);
    }

    private void checkOpen() {
        if (this.closed) {
            throw new IllegalStateException("These cuts are closed");
        }
    }

    private static boolean mountNetCls() {
        if (Files.isRegularFile(NET_CLS.resolve("net_cls.classid"))) {
            return true;
        }
        try {
            Files.createDirectories(NET_CLS);
        }
        catch (IOException ex) {
            return false;
        }
        return Commands.run(false, "mount", "-t", "cgroup", "-o", "net_cls", "net_cls", NET_CLS.toString())
                && Files.isRegularFile(NET_CLS.resolve("net_cls.classid"));
    }

    private static void nft(String command) {
        List<String> words = new ArrayList<>(List.of("nft"));
        words.addAll(List.of(command.split(" ")));
        Commands.run(true, words.toArray(String[]::new));
    }

}
