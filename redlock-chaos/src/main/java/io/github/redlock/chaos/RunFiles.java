package io.github.redlock.chaos;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Lead;
import io.github.redlock.chaos.History.Operation;
import io.github.redlock.chaos.History.StoredWrite;

/** A run directory's files, read whole; a line that cannot be read (e.g. cut short by a kill) is counted and skipped. */
final class RunFiles {

    final Properties properties = new Properties();

    final List<Operation> operations = new ArrayList<>();

    final List<StoredWrite> storage = new ArrayList<>();

    final List<Fault> faults = new ArrayList<>();

    /** The events of the candidates of a leader election, if the run held one. */
    final List<Lead> leads = new ArrayList<>();

    long malformedLines;

    static RunFiles read(Path directory) throws IOException {
        RunFiles files = new RunFiles();
        if (Files.isRegularFile(directory.resolve("run.properties"))) {
            try (Reader reader = Files.newBufferedReader(directory.resolve("run.properties"))) {
                files.properties.load(reader);
            }
        }
        try (DirectoryStream<Path> histories = Files.newDirectoryStream(directory, "history-*.tsv")) {
            for (Path history : histories) {
                for (String line : Files.readAllLines(history)) {
                    if (line.startsWith("op\t")) {
                        files.parse(line, Operation::parse, files.operations);
                    }
                    else if (line.startsWith("lead\t")) {
                        files.parse(line, Lead::parse, files.leads);
                    }
                }
            }
        }
        files.lines(directory.resolve("storage.tsv")).forEach((line) -> files.parse(line, StoredWrite::parse, files.storage));
        files.storage.sort(Comparator.comparingLong(StoredWrite::seq));
        files.lines(directory.resolve("faults.tsv")).forEach((line) -> files.parse(line, Fault::parse, files.faults));
        return files;
    }

    private List<String> lines(Path file) throws IOException {
        return Files.isRegularFile(file) ? Files.readAllLines(file).stream().filter((line) -> !line.isBlank() && !line.startsWith("#")).toList()
                : List.of();
    }

    private <T> void parse(String line, Function<String[], T> parser, List<T> into) {
        try {
            into.add(parser.apply(History.fields(line)));
        }
        catch (RuntimeException ex) {
            this.malformedLines++;
        }
    }

    long nanos(String name, long fallback) {
        String value = this.properties.getProperty(name);
        return (value != null) ? Long.parseLong(value.trim()) : fallback;
    }

    long millis(String name) {
        return nanos(name, 0);
    }

    /**
     * The longest {@code maxTtl} of the run's clients: {@code maxTtlMillis}, or the longest of {@code clientMaxTtlMillis}
     * (each process's, comma-separated) if that is longer. A restarted node waits for it, whichever client checks it.
     */
    long longestMaxTtlMillis() {
        long longest = millis("maxTtlMillis");
        String byClient = this.properties.getProperty("clientMaxTtlMillis", "").trim();
        for (String maxTtl : byClient.isEmpty() ? new String[0] : byClient.split(",")) {
            longest = Math.max(longest, Long.parseLong(maxTtl.trim()));
        }
        return longest;
    }

}
