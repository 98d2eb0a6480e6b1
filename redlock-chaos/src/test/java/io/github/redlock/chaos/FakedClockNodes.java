package io.github.redlock.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redlock.test.Capabilities;
import io.github.redlock.test.RedisNode;

/**
 * Five nodes for the clock tests, the last one's clock set by a file that {@code libfaketime} reads on every
 * clock call (e.g. {@code +30s}); the test is skipped where {@code libfaketime} is not installed.
 */
final class FakedClockNodes implements AutoCloseable {

    private final List<RedisNode> nodes = new ArrayList<>();

    private final Path clock;

    private FakedClockNodes(Path clock) {
        this.clock = clock;
    }

    /** Starts four nodes and a fifth whose clock is off by {@code offset} (libfaketime's syntax, e.g. {@code +0s}). */
    static FakedClockNodes start(Path directory, String offset) throws IOException {
        Path faketime = ChaosRun.faketime().orElse(null);
        Capabilities.assume(Capabilities.FAKETIME, faketime != null, "libfaketime is not installed (apt-get install libfaketime)");
        FakedClockNodes nodes = new FakedClockNodes(directory.resolve("clock-offset"));
        nodes.setClock(offset);
        try {
            for (int i = 0; i < 4; i++) {
                nodes.nodes.add(RedisNode.start());
            }
            nodes.nodes.add(RedisNode.startShipped(Map.of("LD_PRELOAD", faketime.toString(), "FAKETIME_TIMESTAMP_FILE",
                    nodes.clock.toString(), "FAKETIME_NO_CACHE", "1")));
        }
        catch (RuntimeException ex) {
            nodes.close();
            throw ex;
        }
        return nodes;
    }

    /** Moves the last node's clock: the offset from the real time, e.g. {@code +30s}. */
    void setClock(String offset) throws IOException {
        Files.writeString(this.clock, offset + "\n");
    }

    RedisNode node(int index) {
        return this.nodes.get(index);
    }

    List<RedisNode> all() {
        return List.copyOf(this.nodes);
    }

    List<String> uris() {
        return this.nodes.stream().map(RedisNode::uri).toList();
    }

    @Override
    public void close() {
        this.nodes.forEach(RedisNode::close);
    }

}
