package io.github.redlock.sample;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.redlock.test.RedisNodes;

/**
 * Runs the sample application against five local Redis nodes started for it (no Redis installation
 * needed): {@code ./mvnw -pl sample-app -am spring-boot:test-run}. The nodes stop with the JVM.
 */
public final class LocalSampleApplication {

    private LocalSampleApplication() {
    }

    /**
     * Starts five nodes, then the application with {@code redlock.nodes} pointing at them.
     * @param args the application's arguments
     */
    public static void main(String[] args) {
        RedisNodes nodes = RedisNodes.start(5);
        Runtime.getRuntime().addShutdownHook(new Thread(nodes::close, "redlock-local-nodes"));
        System.out.println("Started local Redis nodes: " + nodes.uris());
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        arguments.add("--redlock.nodes=" + String.join(",", nodes.uris()));
        SampleApplication.main(arguments.toArray(String[]::new));
    }

}
