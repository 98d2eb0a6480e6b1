package io.github.redlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * A Redlock that a client process starts during a run when the run asks it to ({@link FaultKind#PARTITIONED_RESTART}):
 * an instance deployed meanwhile, which never saw the nodes before, and locks on the process's own paths for a while. The
 * run writes {@code newcomer-<client>} in its directory ({@link #start}); the process reads it ({@link #next}) and runs
 * it ({@link ChaosClient}), recording its operations in its history as threads {@code 1000 * sequence + t}.
 * @param sequence the newcomer's number in the run, from 1
 * @param millis how long it locks
 */
record Newcomer(int sequence, long millis) {

    /** The first thread number of a newcomer's threads in the history, per sequence number: far above a process's own. */
    static final int THREADS_PER_SEQUENCE = 1000;

    /**
     * Asks client process {@code client} to start newcomer {@code sequence}, which locks for {@code millis}.
     * @param directory the run's directory
     */
    static void start(Path directory, int client, int sequence, long millis) {
        Path file = directory.resolve("newcomer-" + client);
        Path next = directory.resolve("newcomer-" + client + ".next");
        try {
            Files.writeString(next, sequence + " " + millis, StandardCharsets.US_ASCII);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot ask client " + client + " for a newcomer", ex);
        }
    }

    /**
     * The newcomer the run asked client process {@code client} for last, if it is later than {@code after}.
     * @param directory the run's directory
     * @param after the sequence number of the last one the process started, or 0
     */
    static Optional<Newcomer> next(Path directory, int client, int after) {
        Path file = directory.resolve("newcomer-" + client);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            String[] words = Files.readString(file, StandardCharsets.US_ASCII).trim().split(" ");
            Newcomer newcomer = new Newcomer(Integer.parseInt(words[0]), Long.parseLong(words[1]));
            return (newcomer.sequence() > after) ? Optional.of(newcomer) : Optional.empty();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read " + file, ex);
        }
    }

}
