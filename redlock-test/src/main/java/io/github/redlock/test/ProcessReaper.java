package io.github.redlock.test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills every {@code redis-server} this JVM started and has not stopped yet when the JVM exits, so that no
 * process outlives the tests or demo that started it, even when nobody called {@code close()}.
 */
final class ProcessReaper {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::killAll, "redlock-redis-reaper"));
    }

    private ProcessReaper() {
    }

    static void track(Process process) {
        LIVE.add(process);
    }

    static void forget(Process process) {
        LIVE.remove(process);
    }

    private static void killAll() {
        for (Process process : LIVE) {
            process.destroyForcibly(); // SIGKILL also ends a process stopped with SIGSTOP
        }
    }

}
