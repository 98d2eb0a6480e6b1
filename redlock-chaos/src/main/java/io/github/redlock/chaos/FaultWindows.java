package io.github.redlock.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import io.github.redlock.chaos.History.Fault;

/** The fault windows merged into disjoint intervals, to tell in O(log n) whether an interval meets one. */
final class FaultWindows {

    private final long[] starts;

    private final long[] ends;

    FaultWindows(List<Fault> faults) {
        List<long[]> merged = new ArrayList<>();
        faults.stream().sorted(Comparator.comparingLong(Fault::startNanos)).forEach((fault) -> {
            long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && fault.startNanos() <= last[1]) {
                last[1] = Math.max(last[1], fault.endNanos());
            }
            else {
                merged.add(new long[] { fault.startNanos(), fault.endNanos() });
            }
        });
        this.starts = merged.stream().mapToLong((w) -> w[0]).toArray();
        this.ends = merged.stream().mapToLong((w) -> w[1]).toArray();
    }

    /** Whether [start, end] meets a window: the last window beginning by {@code end} must end at {@code start} or later. */
    boolean meets(long start, long end) {
        int i = Arrays.binarySearch(this.starts, end);
        int last = (i >= 0) ? i : -i - 2;
        return last >= 0 && this.ends[last] >= start;
    }

}
