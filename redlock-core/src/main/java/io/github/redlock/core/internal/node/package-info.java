/**
 * One Redis node and the nodes together: a node's connection and commands, its restart vote, its owed clean-ups, the
 * replies, and the quorum call that sends a command to every node at once and decides by majority within the node timeout.
 * <p>
 * Internal: not part of the API of the library. Its types are public only so that the core's other packages can use
 * them, and may change or go in any release, without notice.
 */
@NullMarked
package io.github.redlock.core.internal.node;

import org.jspecify.annotations.NullMarked;
