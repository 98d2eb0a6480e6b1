/**
 * Auto-configuration of the Redlock meters.
 */
package io.github.redlock.autoconfigure.metrics;
