package io.github.redlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.NodeStatus;

/**
 * Which nodes each client process counts now, as its Redlocks say ({@code Redlock.nodeStatuses()}): every client
 * process writes {@code votes-<index>} in the run's directory every {@link #INTERVAL_MILLIS} ms ({@link #write}), one
 * line of {@code <nanoTime> <state of node 0> <state of node 1> ...} in the order of the run's node list, a node
 * {@code UP} only when every Redlock of the process counts it; the run reads them ({@link #awaitVoting}) to wait until
 * a restarted node's quarantine is over for every client, rather than for a time that a loaded machine may outlast.
 * <p>
 * A file is replaced whole (written beside it, then moved over it), so a reader never sees half a line. Thread-safety:
 * {@link #awaitVoting} is called by one thread (the run's faults); {@link #write} by one thread of each process.
 */
final class ClientVotes {

    /** How often a client process writes what it counts. */
    static final long INTERVAL_MILLIS = 100;

    private final Path directory;

    private final List<Process> clients;

    /**
     * @param directory the run's directory, where the client processes write their files
     * @param clients the client processes, by index; one that is no longer alive is not waited for
     */
    ClientVotes(Path directory, List<Process> clients) {
        this.directory = directory;
        this.clients = clients;
    }

    /**
     * Writes what a client process counts now.
     * @param directory the run's directory
     * @param client the process's index
     * @param states each node's state, in the order of the run's node list, {@code UP} where every Redlock counts it
     */
    static void write(Path directory, int client, List<NodeStatus.State> states) {
        StringBuilder line = new StringBuilder(Long.toString(System.nanoTime()));
        states.forEach((state) -> line.append('\t').append(state.name()));
        Path file = directory.resolve("votes-" + client);
        Path next = directory.resolve("votes-" + client + ".next");
        try {
            Files.writeString(next, line.append('\n'), StandardCharsets.US_ASCII);
            try {
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            catch (AtomicMoveNotSupportedException ex) {
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot write what client " + client + " counts", ex);
        }
    }

    /**
     * Waits until every live client process counts the node again after {@code sinceNanos}: each must have written a
     * line after it that does not count the node (it saw it go, or quarantined it), then one that does. A client whose
     * writing thread lags is waited for too, until the bound.
     * @param node the node's index in the run's node list
     * @param sinceNanos a {@code System.nanoTime()} before the node was killed
     * @param boundMillis how long to wait at most
     * @return how long after {@code sinceNanos} the last client counted it, in ms, or -1 when the bound passed first
     */
    long awaitVoting(int node, long sinceNanos, long boundMillis) {
        boolean[] missed = new boolean[this.clients.size()];
        boolean[] counted = new boolean[this.clients.size()];
        long deadline = sinceNanos + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        while (System.nanoTime() - deadline < 0) {
            boolean all = true;
            for (int client = 0; client < this.clients.size(); client++) {
                if (counted[client] || !this.clients.get(client).isAlive()) {
                    continue;
                }
                String[] line = read(client);
                if (line != null && Long.parseLong(line[0]) - sinceNanos > 0 && node + 1 < line.length) {
                    boolean up = NodeStatus.State.UP.name().equals(line[node + 1]);
                    missed[client] |= !up;
                    counted[client] = missed[client] && up;
                }
                all &= counted[client];
            }
            if (all) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
            }
            Faults.sleep(INTERVAL_MILLIS / 2);
        }
        return -1;
    }

    /** The fields of a client's last line, or null before its first. */
    private String[] read(int client) {
        try {
            String line = Files.readString(this.directory.resolve("votes-" + client), StandardCharsets.US_ASCII).trim();
            return line.isEmpty() ? null : line.split("\t");
        }
        catch (NoSuchFileException ex) {
            return null;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read what client " + client + " counts", ex);
        }
    }

    /** The states a process's Redlocks give its nodes, {@code UP} where all count it: what {@link #write} writes. */
    static List<NodeStatus.State> combined(List<List<NodeStatus.State>> byRedlock) {
        List<NodeStatus.State> combined = new ArrayList<>(byRedlock.get(0));
        for (List<NodeStatus.State> states : byRedlock.subList(1, byRedlock.size())) {
            for (int i = 0; i < combined.size(); i++) {
                if (states.get(i) != NodeStatus.State.UP) {
                    combined.set(i, states.get(i));
                }
            }
        }
        return List.copyOf(combined);
    }

}
