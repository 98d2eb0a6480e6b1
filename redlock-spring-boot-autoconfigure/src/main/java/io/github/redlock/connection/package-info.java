/**
 * The starter's connections to the Redis nodes: one Spring Data Redis {@code LettuceConnectionFactory} per node,
 * sharing one set of Lettuce resources. Used by the lock, its health contributor and its endpoint.
 */
@NullMarked
package io.github.redlock.connection;

import org.jspecify.annotations.NullMarked;
