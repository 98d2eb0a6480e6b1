/**
 * Auto-configuration of the Redlock starter: properties, connections and the {@code Redlock} bean.
 */
@NullMarked
package io.github.redlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
