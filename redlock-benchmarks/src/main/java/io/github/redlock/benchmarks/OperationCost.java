package io.github.redlock.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one measured run of an operation cost the nodes and the client, and the same per operation. "Per node" is the
 * mean over the nodes (every operation goes to every node, so they carry nearly the same); "over the nodes" the sum.
 *
 * @param name the operation, e.g. {@code exclusive}
 * @param calls what one operation calls through the public API
 * @param operations how many operations ran
 * @param succeeded how many of them got the lock (or the extension)
 * @param elapsedNanos how long the run took
 * @param nodes what each node did during the run ({@link NodeSample#since})
 * @param sources which commands came from the client and which from scripts
 * @param clientCpuNanos the CPU time the client's JVM used during the run
 */
record OperationCost(String name, String calls, long operations, long succeeded, long elapsedNanos, List<NodeSample> nodes,
        CommandSources sources, long clientCpuNanos) {

    /**
     * Returns the commands the client sent to a node per operation, e.g. {@code evalsha=2.0}.
     * @return command name to calls per operation per node, by name
     */
    Map<String, Double> clientCommands() {
        return perCommand(true);
    }

    /**
     * Returns the commands the scripts ran on a node per operation ({@code redis.call} inside {@code EVALSHA}).
     * @return command name to calls per operation per node, by name
     */
    Map<String, Double> scriptCommands() {
        return perCommand(false);
    }

    /**
     * Returns the microseconds a node spent in the commands the client sent, per operation: {@code commandstats}'
     * {@code usec} of those commands, in which a script's time includes the commands it ran. It leaves out reading
     * requests, parsing and writing replies, which {@link #mainThreadMicros()} includes.
     * @return microseconds per operation per node
     */
    double commandMicros() {
        return perNode((node, sample) -> {
            double micros = 0;
            for (Map.Entry<String, NodeSample.Calls> command : sample.commands().entrySet()) {
                micros += command.getValue().usec() * this.sources.clientShare(node, command.getKey());
            }
            return micros;
        });
    }

    /**
     * Returns the CPU time of a node's main thread per operation: the thread that reads, runs and answers every
     * command, whose core bounds the node's throughput.
     * @return microseconds per operation per node
     */
    double mainThreadMicros() {
        return perNode((node, sample) -> sample.mainThreadCpuSeconds() * 1e6);
    }

    /**
     * Returns the CPU time of a node's whole process per operation (the main thread and Redis's background threads).
     * @return microseconds per operation per node
     */
    double processMicros() {
        return perNode((node, sample) -> sample.processCpuSeconds() * 1e6);
    }

    /**
     * Returns the bytes a node read per operation (the client's requests).
     * @return bytes per operation per node
     */
    double inputBytes() {
        return perNode((node, sample) -> sample.inputBytes());
    }

    /**
     * Returns the bytes a node wrote per operation (replies and pub/sub messages).
     * @return bytes per operation per node
     */
    double outputBytes() {
        return perNode((node, sample) -> sample.outputBytes());
    }

    /**
     * Returns the CPU time of the client's JVM per operation.
     * @return microseconds per operation
     */
    double clientMicros() {
        return this.clientCpuNanos / 1e3 / this.operations;
    }

    /**
     * Returns the operations per second of the run.
     * @return operations over the elapsed time
     */
    double perSecond() {
        return this.operations * 1e9 / this.elapsedNanos;
    }

    /**
     * Returns the CPU time of the busiest node's main thread over the whole run.
     * @return seconds
     */
    double busiestMainThreadSeconds() {
        return this.nodes.stream().mapToDouble(NodeSample::mainThreadCpuSeconds).max().orElse(0);
    }

    private Map<String, Double> perCommand(boolean fromClient) {
        Map<String, Double> calls = new TreeMap<>();
        for (int node = 0; node < this.nodes.size(); node++) {
            for (Map.Entry<String, NodeSample.Calls> command : this.nodes.get(node).commands().entrySet()) {
                double share = this.sources.clientShare(node, command.getKey());
                double count = command.getValue().calls() * (fromClient ? share : 1 - share);
                if (count > 0) {
                    calls.merge(command.getKey(), count / this.operations / this.nodes.size(), Double::sum);
                }
            }
        }
        return calls;
    }

    private double perNode(NodeFigure figure) {
        double total = 0;
        for (int node = 0; node < this.nodes.size(); node++) {
            total += figure.of(node, this.nodes.get(node));
        }
        return total / this.nodes.size() / this.operations;
    }

    /** A figure of one node's run. */
    @FunctionalInterface
    private interface NodeFigure {

        double of(int node, NodeSample sample);

    }

}
