package io.github.redlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.redlock.test.RedisNode;

/**
 * Injects the faults of a run on its nodes and client processes, one at a time, and records each with its
 * window. The last node runs under {@code libfaketime} when it is installed, for the clock faults; without it,
 * those faults are skipped with a message. Nodes run without persistence, but for those a
 * {@link FaultKind#DURABLE_EMPTY_RESTART} restarted durable, until their next restart: which nodes run durable follows
 * from the schedule, so that a seed gives the same faults.
 */
final class Faults {

    /** A durable configuration: every write logged and synced before it is answered. */
    private static final String[] DURABLE = { "--appendonly", "yes", "--appendfsync", "always" };

    private final List<RedisNode> nodes;

    /** Whether each node runs durable now: restarted by {@link FaultKind#DURABLE_EMPTY_RESTART} and not since. */
    private final boolean[] durable;

    private final List<Process> clients;

    /** The offset file libfaketime reads on every clock call of the last node, or null without libfaketime. */
    private final Path clockFile;

    private final long maxTtlMillis;

    private final List<History.Fault> injected = new ArrayList<>();

    private long clockOffsetSeconds;

    Faults(List<RedisNode> nodes, List<Process> clients, Path clockFile, long maxTtlMillis) {
        this.nodes = nodes;
        this.durable = new boolean[nodes.size()];
        this.clients = clients;
        this.clockFile = clockFile;
        this.maxTtlMillis = maxTtlMillis;
    }

    /** The faults injected so far, in order. */
    List<History.Fault> injected() {
        return List.copyOf(this.injected);
    }

    /** Whether this run can inject a fault of that kind. */
    boolean supports(FaultKind kind) {
        return kind != FaultKind.CLOCK_JUMP || this.clockFile != null;
    }

    /** Injects one fault and waits until it is over (the node back, the process resumed). */
    void inject(FaultKind kind, Random random) {
        long start = System.nanoTime();
        String detail = switch (kind) {
            case NODE_RESTART -> {
                int node = random.nextInt(this.nodes.size());
                long down = 100 + random.nextInt(900);
                restart(node, down);
                yield "node " + node + " killed, restarted empty after " + down + " ms";
            }
            case ROLLING_RESTART -> {
                List<Integer> order = distinct(random, this.nodes.size() / 2 + 1);
                for (int node : order) {
                    restart(node, 0);
                }
                yield "nodes " + order + " killed and restarted empty one after another";
            }
            case EVERY_NODE_RESTART -> {
                List<Integer> order = distinct(random, this.nodes.size());
                for (int node : order) {
                    restart(node, 0);
                }
                yield "every node killed and restarted empty one after another, in the order " + order;
            }
            case DURABLE_EMPTY_RESTART -> durableEmptyRestart(random);
            case DURABLE_RESTART -> durableRestart(random);
            case NODE_PAUSE_SHORT -> {
                int node = random.nextInt(this.nodes.size());
                long paused = 20 + random.nextInt(60);
                pause(List.of(node), paused);
                yield "node " + node + " paused " + paused + " ms";
            }
            case NODE_PAUSE_LONG -> {
                int node = random.nextInt(this.nodes.size());
                long paused = this.maxTtlMillis + 500 + random.nextInt(1000);
                pause(List.of(node), paused);
                yield "node " + node + " paused " + paused + " ms";
            }
            case CLIENT_PAUSE -> clientPause(random);
            case CLOCK_JUMP -> clockJump(random);
            case MINORITY_COMBINED -> minorityCombined(random);
            case MAJORITY_DOWN -> {
                List<Integer> majority = distinct(random, this.nodes.size() / 2 + 1);
                long paused = 500 + random.nextInt(1500);
                pause(majority, paused);
                yield "nodes " + majority + " paused " + paused + " ms";
            }
        };
        this.injected.add(new History.Fault(kind, start, System.nanoTime(), detail));
    }

    /** Resumes whatever a failed fault left paused, so that the run can end. */
    void heal() {
        for (RedisNode node : this.nodes) {
            if (node.isPaused()) {
                node.resume();
            }
            if (!node.isRunning()) {
                node.restart();
                this.durable[this.nodes.indexOf(node)] = false;
            }
        }
        for (Process client : this.clients) {
            if (client.isAlive()) {
                signal(client.pid(), "CONT");
            }
        }
    }

    /** Pauses a client process (SIGSTOP of its JVM) for longer than the longest ttl, while its threads hold locks. */
    private String clientPause(Random random) {
        int client = random.nextInt(this.clients.size());
        long paused = this.maxTtlMillis + 500 + random.nextInt(1000);
        signal(this.clients.get(client).pid(), "STOP");
        sleep(paused);
        signal(this.clients.get(client).pid(), "CONT");
        return "client " + client + " paused " + paused + " ms";
    }

    /** Moves the clock of the faked node forward past the longest ttl, and waits while its keys expire early. */
    private String clockJump(Random random) {
        long jump = (this.maxTtlMillis + 999) / 1000 + 1 + random.nextInt(3);
        this.clockOffsetSeconds += jump;
        writeClock();
        sleep(this.maxTtlMillis); // the window in which keys of the jumped node expire early
        return "clock of node " + (this.nodes.size() - 1) + " jumped " + jump + " s forward";
    }

    /** Restarts one node empty while another is paused: two nodes out at once, a minority of five. */
    private String minorityCombined(Random random) {
        List<Integer> two = distinct(random, 2);
        this.nodes.get(two.get(1)).pause();
        try {
            restart(two.get(0), 300 + random.nextInt(500));
        }
        finally {
            this.nodes.get(two.get(1)).resume();
        }
        return "node " + two.get(0) + " restarted empty while node " + two.get(1) + " was paused";
    }

    /**
     * Restarts a majority of the nodes empty one after another under the durable configuration, which each keeps
     * until its next restart.
     */
    private String durableEmptyRestart(Random random) {
        List<Integer> order = distinct(random, this.nodes.size() / 2 + 1);
        for (int node : order) {
            this.nodes.get(node).restart(DURABLE);
            this.durable[node] = true;
        }
        return "nodes " + order + " killed and restarted empty one after another, with appendonly yes, appendfsync always";
    }

    /** Crashes a node that runs durable (any node when none does) and lets it recover from its files. */
    private String durableRestart(Random random) {
        List<Integer> candidates = durableNodes();
        boolean kept = !candidates.isEmpty();
        int node = kept ? candidates.get(random.nextInt(candidates.size())) : random.nextInt(this.nodes.size());
        long down = 100 + random.nextInt(900);
        this.nodes.get(node).kill();
        sleep(down);
        this.nodes.get(node).restartKeepingData(kept ? DURABLE : new String[0]);
        return "node " + node + " killed, restarted from its files after " + down + " ms: " + (kept ? "it runs durable, and came back "
                + "with its data" : "no node runs durable; it persisted nothing, and came back empty");
    }

    /** Restarts a node empty, as the harness runs nodes: without persistence, whatever it ran with before. */
    private void restart(int node, long downMillis) {
        this.nodes.get(node).kill();
        sleep(downMillis);
        this.nodes.get(node).restart();
        this.durable[node] = false;
    }

    private List<Integer> durableNodes() {
        List<Integer> durableNodes = new ArrayList<>();
        for (int i = 0; i < this.nodes.size(); i++) {
            if (this.durable[i]) {
                durableNodes.add(i);
            }
        }
        return durableNodes;
    }

    private void pause(List<Integer> which, long millis) {
        List<RedisNode> paused = new ArrayList<>();
        try {
            for (int node : which) {
                this.nodes.get(node).pause();
                paused.add(this.nodes.get(node));
            }
            sleep(millis);
        }
        finally {
            paused.forEach(RedisNode::resume);
        }
    }

    private void writeClock() {
        try {
            Files.writeString(this.clockFile, "+" + this.clockOffsetSeconds + "s\n", StandardCharsets.US_ASCII);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot move the clock of the faked node", ex);
        }
    }

    private List<Integer> distinct(Random random, int count) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < this.nodes.size(); i++) {
            all.add(i);
        }
        java.util.Collections.shuffle(all, random);
        return List.copyOf(all.subList(0, count));
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot send SIG" + signal + " to " + pid, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while injecting a fault", ex);
        }
    }

}
