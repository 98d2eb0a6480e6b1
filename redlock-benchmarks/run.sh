#!/usr/bin/env bash
# Runs the benchmark set on five local Redis nodes and prints a table of throughput, p50/p99 latency and
# allocation per operation, each with its ratio to the protocol floor measured in the same run. It also
# writes the table (docs/evidence/benchmarks/results.md) and the chart of p50 ratios (docs/evidence/benchmarks/latency.svg)
# that docs/evidence/performance.md shows.
# Usage: redlock-benchmarks/run.sh [thread counts, default 1,16,64]   (about 30 minutes for the default set, with
# the hot-key handoff at 8 and 32 threads, which also writes docs/evidence/benchmarks/handoff.md and handoff.svg)
#        redlock-benchmarks/run.sh --kotlin [threads, default 1] [rounds, default 6]   (about 17 minutes: the @Redlocked
# suspend fun against the Java method, one fork of each per round, in alternating order, and the median of the rounds'
# ratios, then the interleaved comparison below; writes docs/evidence/benchmarks/kotlin.md)
#        redlock-benchmarks/run.sh --interleaved [threads, default 1] [forks, default 3]   (about 6 minutes: both paths in
# one benchmark, annotatedPair, a call of each per invocation in alternating order, each fork after a control fork that
# times the Java path against itself; each fork's ratio and their median; prints only)
#        redlock-benchmarks/run.sh --costs [operations, default 5000] [seconds, default 10]   (about 2 minutes: what each
# lock operation costs the Redis nodes, in commands, CPU and bytes, and the locks per second a node's core carries;
# writes docs/evidence/benchmarks/command-costs.md, which docs/scaling.md draws on)
#        redlock-benchmarks/run.sh --cluster [rounds, default 3] [sides, default standalone cluster]   (about 2 minutes a
# round: lock + unlock on 5 standalone nodes against 5 Redis Cluster nodes of 3 masters, p50 at 1 thread and throughput
# at 64; a minute more per round for each further side, e.g. cluster-one-master-no-publish; writes docs/evidence/benchmarks/cluster.md)
#        redlock-benchmarks/run.sh --fenced-transactions [threads, default 1] [forks, default 3]   (about 2 minutes: a
# @Transactional method of one UPDATE on a local PostgreSQL under @Redlocked(fenced = true) and under @Redlocked, a call of
# each in turn in 3 forks, then a fork of each and one without a lock; each one's mean time of a call, ratio and
# difference to the unfenced one; prints only)
#        redlock-benchmarks/run.sh --chart-only   (runs no benchmark: draws latency.svg and handoff.svg again from the
# tables in docs/evidence/benchmarks, e.g. after a change to the charts)
# Maven options (e.g. -Dmaven.repo.local=...) go in MAVEN_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl redlock-benchmarks -am package -DskipTests
if [[ "${1:-}" == "--chart-only" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks --chart-only docs/evidence/benchmarks
fi
if [[ "${1:-}" == "--costs" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.CommandCosts "${2:-5000}" "${3:-10}" docs/evidence/benchmarks
fi
if [[ "${1:-}" == "--cluster" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks --cluster "${2:-3}" docs/evidence/benchmarks "${@:3}"
fi
if [[ "${1:-}" == "--fenced-transactions" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks --fenced-transactions "${2:-1}" "${3:-3}"
fi
if [[ "${1:-}" == "--interleaved" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks --interleaved "${2:-1}" "${3:-3}"
fi
if [[ "${1:-}" == "--kotlin" ]]; then
    exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks --kotlin "${2:-1}" docs/evidence/benchmarks "${3:-6}"
fi
exec java -cp redlock-benchmarks/target/benchmarks.jar io.github.redlock.benchmarks.RunBenchmarks "${1:-1,16,64}" docs/evidence/benchmarks
