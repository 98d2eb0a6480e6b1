/**
 * The Lua scripts (beside their loader, as classpath resources of this package) and the key layout of each lock type:
 * which keys an exclusive, read, write or multi-key lock writes, and which script acquires, extends and releases it.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.script;

import org.jspecify.annotations.NullMarked;
