package io.github.redlock.core.internal.engine;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.github.redlock.core.RedlockLease;
import org.jspecify.annotations.Nullable;

/**
 * Callers in this JVM that wait for the same exclusive lock, in arrival order: only the first of each line
 * contends in Redis; the others wait for their turn without sending anything, so that a hot key costs one
 * remote attempt per handoff rather than one per waiting thread. A caller's turn comes when the one before it
 * leaves the line: acquired (the next one is told the lease, and waits for its release in this JVM rather than
 * be refused by the nodes while it is held), gave up, or was cancelled. A line holds at most
 * {@link #MAX_WAITING} callers behind its first; more contend on their own, as without a line.
 */
public final class LocalLines {

    /** How many callers may wait behind the first of one line. */
    static final int MAX_WAITING = 4_096;

    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

    /** A caller in a line: told, when its turn comes, the lease the caller before it obtained, or null. */
    interface Waiter extends Consumer<RedlockLease> {
    }

    private final Executor turns;

    /**
     * @param turns where a caller is told its turn came: never an I/O thread, so that its attempt queues up
     * behind what was sent before it on each connection
     */
    LocalLines(Executor turns) {
        this.turns = turns;
    }

    /**
     * Joins the line of a lock.
     * @return {@link Place#FIRST} (contend now), {@link Place#WAITING} ({@code waiter} is called when its turn
     * comes), or {@link Place#UNLINED} (the line is full: contend now, outside it)
     */
    Place join(String key, Waiter waiter) {
        Place[] place = new Place[1];
        this.lines.compute(key, (name, line) -> {
            if (line == null) {
                place[0] = Place.FIRST;
                return new Line(waiter);
            }
            if (line.behind.size() >= MAX_WAITING) {
                place[0] = Place.UNLINED;
                return line;
            }
            line.behind.add(waiter);
            place[0] = Place.WAITING;
            return line;
        });
        return place[0];
    }

    /**
     * Leaves the line of a lock (whatever the place in it); if the caller was first, the next one's turn comes.
     * @param held the lease the leaving caller obtained, or null (it gave up, failed or was cancelled)
     */
    void leave(String key, Waiter waiter, @Nullable RedlockLease held) {
        Waiter[] next = new Waiter[1];
        this.lines.computeIfPresent(key, (name, line) -> {
            if (line.first != waiter) {
                line.behind.remove(waiter);
                return line;
            }
            next[0] = line.behind.poll();
            if (next[0] == null) {
                return null;
            }
            line.first = next[0];
            return line;
        });
        if (next[0] != null) {
            Waiter turn = next[0];
            this.turns.execute(() -> turn.accept(held));
        }
    }

    /** Where a caller stands in a line. */
    enum Place {

        /** First: contends in Redis now. */
        FIRST,

        /** Behind others: waits for its turn. */
        WAITING,

        /** Not in the line (it was full): contends now. */
        UNLINED

    }

    /** One lock's line; changed only inside the map's compute functions, so one change at a time. */
    private static final class Line {

        private Waiter first;

        private final ArrayDeque<Waiter> behind = new ArrayDeque<>();

        Line(Waiter first) {
            this.first = first;
        }

    }

}
