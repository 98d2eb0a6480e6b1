/**
 * Release messages: the pub/sub channel on which a release wakes the clients waiting for its key, so that waiting
 * follows releases instead of polling.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.release;

import org.jspecify.annotations.NullMarked;
