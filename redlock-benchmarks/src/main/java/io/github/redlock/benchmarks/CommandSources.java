package io.github.redlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which commands the lock's client sends and which its scripts run, learnt from a short pass of an operation under
 * {@code MONITOR}, which marks a script's {@code redis.call} with {@code [0 lua]} where a client's command has the
 * client's address. {@code commandstats} counts both alike, and a script's time includes that of the commands it
 * ran, so a measurement needs this split to count each command once: the time a node spent in commands is the
 * time of the commands that clients sent.
 * <p>
 * {@code MONITOR} costs a node much more than the commands it shows, so the pass runs apart from the measured one.
 * A command is counted under the name {@code commandstats} gives its family ({@code script} for {@code script|load}).
 */
final class CommandSources {

    private static final Pattern LINE = Pattern.compile("^\\+\\d+\\.\\d+ \\[\\d+ ([^\\]]+)\\] \"([^\"]+)\"");

    private static final String MARKER = "redlock-cost-marker";

    /** Per node, per command family: how many calls came from a client (index 0) and from a script (index 1). */
    private final List<Map<String, long[]>> counts;

    private CommandSources(List<Map<String, long[]>> counts) {
        this.counts = counts;
    }

    /**
     * Runs {@code operations} while every node is monitored, then stops monitoring.
     * @param uris the nodes
     * @param stats the connections that send the end marker
     * @param operations the operations to watch
     * @return where each command came from
     * @throws InterruptedException when interrupted while the operations ran
     */
    static CommandSources watch(List<String> uris, NodeStats stats, Workload.Pass operations) throws InterruptedException {
        List<Socket> sockets = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(uris.size());
        try {
            List<CompletableFuture<Map<String, long[]>>> readers = new ArrayList<>();
            for (String uri : uris) {
                Socket socket = monitor(URI.create(uri));
                sockets.add(socket);
                readers.add(CompletableFuture.supplyAsync(() -> read(socket), threads));
            }
            operations.run();
            for (int i = 0; i < uris.size(); i++) {
                stats.echo(i, MARKER);
            }
            return new CommandSources(readers.stream().map(CompletableFuture::join).toList());
        }
        finally {
            for (Socket socket : sockets) {
                close(socket);
            }
            threads.shutdown();
        }
    }

    /**
     * Returns the share of a command's calls on a node that a client sent, as seen in the monitored pass.
     * @param node the node's index
     * @param command the name as {@code commandstats} gives it, e.g. {@code evalsha} or {@code script|load}
     * @return from 0 (only scripts ran it) to 1 (only clients sent it); 1 for a command the pass did not see
     */
    double clientShare(int node, String command) {
        int bar = command.indexOf('|');
        long[] calls = this.counts.get(node).get((bar < 0) ? command : command.substring(0, bar));
        return (calls == null || calls[0] + calls[1] == 0) ? 1 : (double) calls[0] / (calls[0] + calls[1]);
    }

    private static Socket monitor(URI uri) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            // "+OK": from here on, the node shows every command. Read byte by byte, the reader buffers what follows.
            for (int read = socket.getInputStream().read(); read != '\n'; read = socket.getInputStream().read()) {
                if (read < 0) {
                    throw new IOException("Connection closed before MONITOR answered");
                }
            }
            return socket;
        }
        catch (IOException ex) {
            close(socket);
            throw new UncheckedIOException("MONITOR could not start on " + uri, ex);
        }
    }

    private static Map<String, long[]> read(Socket socket) {
        Map<String, long[]> counts = new HashMap<>();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null && !line.contains('"' + MARKER + '"'); line = lines.readLine()) {
                Matcher matcher = LINE.matcher(line);
                if (matcher.find()) {
                    long[] calls = counts.computeIfAbsent(matcher.group(2).toLowerCase(Locale.ROOT), (name) -> new long[2]);
                    calls[matcher.group(1).equals("lua") ? 1 : 0]++;
                }
            }
            return counts;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("MONITOR stopped before the end marker on port " + socket.getPort(), ex);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // Nothing to release beyond the socket itself.
        }
    }

}
