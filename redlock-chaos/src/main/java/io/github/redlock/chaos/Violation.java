package io.github.redlock.chaos;

/**
 * One breach of a safety or liveness property found in a run's history. The detail names both sides of the
 * breach (clients, threads, lease and fencing tokens) and their times in milliseconds since the run began, so
 * that it can be found again in the history files and on the timeline.
 *
 * @param kind the property broken
 * @param lockKey the lock it was broken on
 * @param detail what happened, in words
 */
record Violation(Kind kind, String lockKey, String detail) {

    /** The properties a run must keep. */
    enum Kind {

        /** Two holders of the same lock, at least one exclusive, believed they held it at the same moment. */
        OVERLAP,

        /** An acquisition that began after another had returned got a fencing token that is not larger. */
        FENCING_ORDER,

        /** The storage accepted a fenced write from a holder whose grant is older than one it already accepted. */
        STALE_WRITE,

        /** A lock was not acquired again within the allowance after the faults stopped. */
        LIVENESS

    }

    /** The violation on one line: kind, lock key and detail. */
    String line() {
        return this.kind + " " + this.lockKey + ": " + this.detail;
    }

}
