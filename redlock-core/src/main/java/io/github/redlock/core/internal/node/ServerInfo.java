package io.github.redlock.core.internal.node;

/**
 * What a node says of itself when a client connects: which server process it is ({@code run_id}, new at every
 * start), how long it has run, whether it is a master, and whether it keeps every acknowledged write across a
 * restart ({@code appendonly yes} with {@code appendfsync always}), and whether it was promoted from a replica
 * (a failover) since it started, in which case its uptime says nothing of how long it has been the master.
 *
 * @param runId the server's {@code run_id}
 * @param uptimeSeconds its {@code uptime_in_seconds}
 * @param master whether its {@code role} is master
 * @param durable whether it logs every write before answering; false when {@code CONFIG} is disabled
 * @param promoted whether this process was a replica that was promoted ({@code second_repl_offset} is not -1: Redis
 * keeps the replication history it had as a replica), so that it may lack writes that its former master acknowledged
 */
public record ServerInfo(String runId, long uptimeSeconds, boolean master, boolean durable, boolean promoted) {

    /**
     * How long the node has certainly held its data as a master: its uptime, or 0 when it was promoted at a time that
     * {@code INFO} does not tell (the promotion may be a moment ago).
     */
    public long masterForSeconds() {
        return this.promoted ? 0 : this.uptimeSeconds;
    }

    /** Reads the fields of {@code INFO server} and {@code INFO replication} (both sections may be in one text). */
    static ServerInfo parse(String info, boolean durable) {
        String runId = null;
        long uptime = 0;
        boolean master = true;
        boolean promoted = false;
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
            else if (line.startsWith("second_repl_offset:")) {
                promoted = !line.substring(19).trim().equals("-1");
            }
        }
        if (runId == null || runId.isEmpty()) { // an empty one would hide every restart
            throw new IllegalArgumentException("INFO has no run_id");
        }
        return new ServerInfo(runId, uptime, master, durable, promoted);
    }

    /**
     * What the masters of a cluster say of themselves, as one server: their {@code run_id}s, sorted, joined by {@code +}
     * (any master that restarted or was replaced changes it; slots moved between the same masters do not), the
     * shortest uptime, a master only if all are, promoted if one is, and never durable (no marker proves a whole
     * cluster's data: a restart is always quarantined).
     */
    static ServerInfo ofCluster(java.util.List<ServerInfo> masters) {
        java.util.TreeSet<String> runIds = new java.util.TreeSet<>();
        long uptime = Long.MAX_VALUE;
        boolean master = true;
        boolean promoted = false;
        for (ServerInfo info : masters) {
            runIds.add(info.runId());
            uptime = Math.min(uptime, info.uptimeSeconds());
            master &= info.master();
            promoted |= info.promoted();
        }
        return new ServerInfo(String.join("+", runIds), uptime, master, false, promoted);
    }

}
