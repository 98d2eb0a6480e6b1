package io.github.redlock.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.redlock.test.RedisNodes;

/**
 * Runs the sample application against five local Redis nodes (no Redis installation needed):
 * {@code ./mvnw -pl sample-app -am spring-boot:test-run}. The first instance starts the nodes and writes
 * their URIs to {@code target/local-redis-nodes}; a second instance started the same way (with
 * {@code -Dspring-boot.run.arguments=--server.port=8081}) finds them answering and joins them, to show
 * exclusion across processes. The nodes stop with the instance that started them.
 */
public final class LocalSampleApplication {

    private static final Path NODES_FILE = Path.of("target", "local-redis-nodes");

    private LocalSampleApplication() {
    }

    /**
     * Joins running local nodes, or starts five, then starts the application with {@code redlock.nodes}
     * pointing at them.
     * @param args the application's arguments
     * @throws IOException if the nodes' file cannot be written
     */
    public static void main(String[] args) throws IOException {
        List<String> uris = runningNodes();
        if (uris.isEmpty()) {
            RedisNodes nodes = RedisNodes.start(5);
            Runtime.getRuntime().addShutdownHook(new Thread(nodes::close, "redlock-local-nodes"));
            uris = nodes.uris();
            Files.createDirectories(NODES_FILE.getParent());
            Files.writeString(NODES_FILE, String.join(",", uris));
            System.out.println("Started five local Redis nodes: " + uris + ". Start a second instance against them with:");
            System.out.println("  ./mvnw -pl sample-app -am spring-boot:test-run -Dspring-boot.run.arguments=--server.port=8081");
        }
        else {
            System.out.println("Joining the local Redis nodes of the instance that started them: " + uris);
        }
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        arguments.add("--redlock.nodes=" + String.join(",", uris));
        SampleApplication.main(arguments.toArray(String[]::new));
    }

    /** The nodes another local instance started, if every one of them answers PING. */
    private static List<String> runningNodes() {
        try {
            if (!Files.exists(NODES_FILE)) {
                return List.of();
            }
            List<String> uris = List.of(Files.readString(NODES_FILE).trim().split(","));
            return RedisNodes.allAnswer(uris) ? uris : List.of();
        }
        catch (IOException ex) {
            return List.of();
        }
    }

}
