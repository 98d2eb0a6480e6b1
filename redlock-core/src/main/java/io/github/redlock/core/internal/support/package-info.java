/**
 * Small helpers the whole core uses: duration checks, futures with bounded waits, the work in flight that a close waits
 * for, the guarded observer, and rate-limited warnings. Depends on nothing else of the core but its API types.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.support;

import org.jspecify.annotations.NullMarked;
