package io.github.redlock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisNodes;

/**
 * Measures what each lock operation costs the Redis nodes, for docs/scaling.md: on five local {@code redis-server}
 * processes, each operation ({@link Workloads}) runs a warm-up, a short pass under {@code MONITOR} that tells the
 * client's commands from those its scripts run ({@link CommandSources}), then {@code CONFIG RESETSTAT} and the
 * measured run, after which {@code INFO all} of every node gives the commands per operation, the microseconds in
 * them, the CPU time of the node's main thread and process, and the bytes in and out. Then many threads lock and
 * unlock as fast as they can for a window ({@link Throughput}), sharing one client and then spread over
 * {@value #CLIENTS}, from which comes how many locks a node's core carries under load. It prints the tables as
 * Markdown ({@link CostTable}).
 * <p>
 * Arguments, all optional: the operations of each measured run (default {@value #OPERATIONS}), the seconds of each
 * throughput window (default {@value #WINDOW_SECONDS}), and a directory in which to write the tables as
 * {@code command-costs.md}. {@code redlock-benchmarks/run.sh --costs} runs it and writes to {@code docs/evidence/benchmarks}.
 */
public final class CommandCosts {

    /** The operations of each measured run, unless told. */
    static final int OPERATIONS = 5000;

    /** The seconds of each throughput window, unless told. */
    static final int WINDOW_SECONDS = 10;

    /** The threads of the throughput windows. */
    static final int THREADS = 64;

    /** The clients of the second throughput window, as instances of an application, each with its connections. */
    static final int CLIENTS = 8;

    /** How long the nodes are watched idle, with the clients connected. */
    private static final Duration IDLE = Duration.ofSeconds(2);

    private CommandCosts() {
    }

    /**
     * Runs the measurements and prints the tables.
     * @param args the operations per run, the seconds of each throughput window, and an output directory; each optional
     * @throws InterruptedException when interrupted
     * @throws IOException when the tables cannot be written
     */
    public static void main(String[] args) throws InterruptedException, IOException {
        int operations = (args.length > 0) ? Integer.parseInt(args[0]) : OPERATIONS;
        int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : WINDOW_SECONDS;
        Report report = measure(new Settings(operations, Duration.ofSeconds(seconds), THREADS));
        String markdown = CostTable.markdown(report);
        System.out.println(markdown);
        if (args.length > 2) {
            Path written = Path.of(args[2]).resolve("command-costs.md");
            Files.writeString(written, markdown);
            System.out.println("Written to " + written);
        }
    }

    /**
     * Starts five nodes and the clients, measures every operation and the throughput windows, and stops them.
     * @param settings how much to run
     * @return the measurements
     * @throws InterruptedException when interrupted
     */
    static Report measure(Settings settings) throws InterruptedException {
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (RedisNodes redis = RedisNodes.start(5);
                Redlock redlock = client(redis, false);
                Redlock fenced = client(redis, true);
                Redlock rival = client(redis, false);
                NodeStats stats = new NodeStats(redis.uris())) {
            List<OperationCost> costs = new ArrayList<>();
            for (Workload workload : Workloads.all(redlock, fenced, rival)) {
                try (workload) {
                    costs.add(measure(workload, redis.uris(), stats, settings));
                }
            }
            double idle = Throughput.idleMicrosPerSecond(stats, IDLE);
            List<OperationCost> windows = windows(redis, redlock, stats, costs.get(0).sources(), settings);
            String version = stats.sample().get(0).version();
            double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return new Report(LocalDate.now(), version, Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter, idle,
                    settings, costs, windows);
        }
    }

    /** The throughput windows: the threads sharing one client, then spread over {@value #CLIENTS} clients. */
    private static List<OperationCost> windows(RedisNodes redis, Redlock redlock, NodeStats stats, CommandSources sources,
            Settings settings) throws InterruptedException {
        List<OperationCost> windows = new ArrayList<>();
        windows.add(Throughput.measure(List.of(redlock), stats, sources, settings.threads(), settings.throughputWarmUp(), settings.window()));
        List<Redlock> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(client(redis, false));
            }
            windows.add(Throughput.measure(clients, stats, sources, settings.threads(), settings.throughputWarmUp(), settings.window()));
        }
        finally {
            clients.forEach(Redlock::close);
        }
        return windows;
    }

    private static OperationCost measure(Workload workload, List<String> uris, NodeStats stats, Settings settings)
            throws InterruptedException {
        workload.run(settings.warmUp());
        CommandSources sources = CommandSources.watch(uris, stats, () -> workload.run(settings.monitored()));
        stats.reset();
        List<NodeSample> before = stats.sample();
        long cpu = Throughput.clientCpuNanos();
        long start = System.nanoTime();
        int succeeded = workload.run(settings.operations());
        long elapsed = System.nanoTime() - start;
        cpu = Throughput.clientCpuNanos() - cpu;
        List<NodeSample> nodes = NodeSample.between(before, stats.sample());
        return new OperationCost(workload.name(), workload.calls(), settings.operations(), succeeded, elapsed, nodes, sources, cpu);
    }

    private static Redlock client(RedisNodes redis, boolean fencing) {
        return Redlock.builder().nodes(redis.uris()).nodeTimeout(LockUnlockBenchmark.NODE_TIMEOUT).fencing(fencing).build();
    }

    /**
     * How much to run.
     * @param operations the operations of each measured run
     * @param window how long each throughput window lasts
     * @param threads how many threads lock in the throughput windows
     */
    record Settings(int operations, Duration window, int threads) {

        /** The operations before the monitored pass: the JIT compiles the path, the nodes load the scripts. */
        int warmUp() {
            return Math.max(50, this.operations / 5);
        }

        /** The operations of the monitored pass. */
        int monitored() {
            return Math.min(this.operations, 50);
        }

        /** How long the threads run before each throughput window. */
        Duration throughputWarmUp() {
            return this.window.dividedBy(5);
        }

    }

    /**
     * The measurements of one run of the tool.
     * @param date when
     * @param redisVersion the nodes' {@code redis_version}
     * @param cores the processors the JVM sees, shared by the nodes and the client
     * @param loadBefore the system load average at the start
     * @param loadAfter the system load average at the end
     * @param idleMicrosPerSecond the CPU time a node's main thread used per second while idle, clients connected
     * @param settings how much ran
     * @param operations each operation's cost, in the order of {@link Workloads#all}
     * @param windows the throughput windows' costs: one client, then {@value #CLIENTS}
     */
    record Report(LocalDate date, String redisVersion, int cores, double loadBefore, double loadAfter, double idleMicrosPerSecond,
            Settings settings, List<OperationCost> operations, List<OperationCost> windows) {

    }

}
