package io.github.redlock.core.internal.node;

/**
 * What a node says of itself when a client connects: which server process it is ({@code run_id}, new at every
 * start), how long it has run, whether it is a master, and whether it keeps every acknowledged write across a
 * restart ({@code appendonly yes} with {@code appendfsync always}).
 *
 * @param runId the server's {@code run_id}
 * @param uptimeSeconds its {@code uptime_in_seconds}
 * @param master whether its {@code role} is master
 * @param durable whether it logs every write before answering; false when {@code CONFIG} is disabled
 */
public record ServerInfo(String runId, long uptimeSeconds, boolean master, boolean durable) {

    /** Reads the fields of {@code INFO server} and {@code INFO replication} (both sections may be in one text). */
    static ServerInfo parse(String info, boolean durable) {
        String runId = null;
        long uptime = 0;
        boolean master = true;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("run_id:")) {
                runId = line.substring(7).trim();
            }
            else if (line.startsWith("uptime_in_seconds:")) {
                uptime = Long.parseLong(line.substring(18).trim());
            }
            else if (line.startsWith("role:")) {
                master = line.substring(5).trim().equals("master");
            }
        }
        if (runId == null || runId.isEmpty()) { // an empty one would hide every restart
            throw new IllegalArgumentException("INFO has no run_id");
        }
        return new ServerInfo(runId, uptime, master, durable);
    }

}
