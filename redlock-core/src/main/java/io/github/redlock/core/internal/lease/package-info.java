/**
 * A lease once granted: its state on each node, its release and extension (the follow-ups, sent in program order),
 * its automatic extension, the leases this client holds, the attempts' results and their Micrometer observations.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.lease;

import org.jspecify.annotations.NullMarked;
