/**
 * JMH benchmarks of the Redlock core, the annotation and Redisson against the protocol's floor (raw Lettuce, same commands) and in a hot-key handoff, and the runner that writes the results table and chart.
 */
package io.github.redlock.benchmarks;
