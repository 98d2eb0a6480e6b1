/**
 * The engine of the algorithm: one attempt on the nodes, the retries while waiting (woken by releases), the local
 * queue of this client's callers for each key, and the tokens.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.engine;

import org.jspecify.annotations.NullMarked;
