/**
 * Auto-configuration of the Redlock starter: properties, connections and the {@code Redlock} bean.
 */
package io.github.redlock.autoconfigure;
