/**
 * JMH benchmarks of the Redlock core, the annotation and Redisson against the protocol's floor (raw Lettuce, same commands) and in a hot-key handoff, a fenced transaction on PostgreSQL against an unfenced one, the runner that writes the results table and chart, and the tool that measures what each lock operation costs the Redis nodes (CommandCosts).
 */
package io.github.redlock.benchmarks;
