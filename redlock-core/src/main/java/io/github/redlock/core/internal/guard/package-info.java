/**
 * The restart guard and fencing: whether a restarted node may vote again (its quarantine, the records clients keep of
 * each node's incarnations) and the fencing counters that stay monotonic across restarts.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.guard;

import org.jspecify.annotations.NullMarked;
