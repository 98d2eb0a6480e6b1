package io.github.redlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * What one Redis node reported in one {@code INFO all}: the calls and microseconds of each command
 * ({@code commandstats}), the CPU the server process and its main thread used ({@code cpu}), the bytes it read and
 * wrote ({@code stats}) and its version. Two samples of a node give what happened in between
 * ({@link #since(NodeSample)}).
 * <p>
 * Redis counts a command that a script runs ({@code redis.call}) as a call of its own <em>and</em> inside the
 * script's time: an {@code EVALSHA}'s {@code usec} includes the {@code usec} of the {@code GET} and {@code DEL} it
 * ran. Summing {@code usec} over every command counts script work twice; {@link CommandSources} tells the two apart.
 *
 * @param commands per command name as {@code commandstats} spells it ({@code evalsha}, {@code config|resetstat}):
 * its calls and microseconds
 * @param processCpuSeconds {@code used_cpu_sys + used_cpu_user}: every thread of the server process
 * @param mainThreadCpuSeconds {@code used_cpu_sys_main_thread + used_cpu_user_main_thread}: the thread that runs
 * every command, whose one core bounds a node's throughput
 * @param inputBytes {@code total_net_input_bytes}
 * @param outputBytes {@code total_net_output_bytes}
 * @param version {@code redis_version}
 * @param replyBytes the size of this {@code INFO} reply on the wire, which the node counts in its output bytes
 * only after this sample was taken
 */
record NodeSample(Map<String, Calls> commands, double processCpuSeconds, double mainThreadCpuSeconds, long inputBytes,
        long outputBytes, String version, long replyBytes) {

    /** The bytes of {@code INFO all} as a client sends it ({@code *2 $4 INFO $3 all}), counted in the next sample. */
    static final long REQUEST_BYTES = "*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n".length();

    /**
     * The calls of one command and the microseconds the node spent in them.
     * @param calls how many times it ran
     * @param usec the time in it, wall clock, as Redis measures around the command
     */
    record Calls(long calls, long usec) {

        Calls minus(Calls earlier) {
            return new Calls(this.calls - earlier.calls, this.usec - earlier.usec);
        }

    }

    /**
     * Reads an {@code INFO all} reply.
     * @param info the reply
     * @return the sample
     * @throws IllegalStateException when a field this tool needs is missing (a server older than 6.2 has no
     * per-thread CPU)
     */
    static NodeSample parse(String info) {
        Map<String, String> fields = new LinkedHashMap<>();
        Map<String, Calls> commands = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (line.startsWith("#") || colon < 0) {
                continue;
            }
            String name = line.substring(0, colon);
            String value = line.substring(colon + 1);
            if (name.startsWith("cmdstat_")) {
                commands.put(name.substring("cmdstat_".length()), new Calls(field(value, "calls"), field(value, "usec")));
            }
            else {
                fields.put(name, value);
            }
        }
        long reply = info.getBytes(StandardCharsets.UTF_8).length;
        return new NodeSample(commands, number(fields, "used_cpu_sys") + number(fields, "used_cpu_user"),
                number(fields, "used_cpu_sys_main_thread") + number(fields, "used_cpu_user_main_thread"),
                (long) number(fields, "total_net_input_bytes"), (long) number(fields, "total_net_output_bytes"),
                fields.getOrDefault("redis_version", "unknown"), reply + Long.toString(reply).length() + 5);
    }

    /**
     * Returns what the node did between {@code earlier} and this sample, without the {@code INFO} that took
     * {@code earlier} (Redis counts a command after it ran, so its call is in this sample): neither its call, nor
     * its reply's bytes, nor this sample's request bytes. Its microseconds stay in when clients also sent
     * {@code INFO} in between (then a share of the command's time by calls is taken out).
     * @param earlier a sample of the same node taken before this one
     * @return the differences; a command absent from {@code earlier} counts from zero
     */
    NodeSample since(NodeSample earlier) {
        Map<String, Calls> delta = new LinkedHashMap<>();
        this.commands.forEach((name, calls) -> {
            Calls difference = calls.minus(earlier.commands.getOrDefault(name, new Calls(0, 0)));
            if (name.equals("info") && difference.calls() > 0) {
                difference = new Calls(difference.calls() - 1, difference.usec() - difference.usec() / difference.calls());
            }
            if (difference.calls() > 0) {
                delta.put(name, difference);
            }
        });
        return new NodeSample(delta, this.processCpuSeconds - earlier.processCpuSeconds,
                this.mainThreadCpuSeconds - earlier.mainThreadCpuSeconds, this.inputBytes - earlier.inputBytes - REQUEST_BYTES,
                this.outputBytes - earlier.outputBytes - earlier.replyBytes, this.version, 0);
    }

    /**
     * Returns what each node did between two samples of all of them: {@link #since(NodeSample)} node by node.
     * @param before the earlier samples, in node order
     * @param after the later samples, in the same order
     * @return the differences, in node order
     */
    static List<NodeSample> between(List<NodeSample> before, List<NodeSample> after) {
        return IntStream.range(0, after.size()).mapToObj((node) -> after.get(node).since(before.get(node))).toList();
    }

    private static long field(String stats, String name) {
        for (String part : stats.split(",")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new IllegalStateException("No " + name + "= in commandstats line '" + stats + "'");
    }

    private static double number(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalStateException("INFO all has no " + name + ": the cost tool needs Redis 6.2 or later (or Valkey)");
        }
        return Double.parseDouble(value.trim());
    }

}
