package io.github.redlock.benchmarks

import io.github.redlock.annotation.OnFailure
import io.github.redlock.annotation.Redlocked

/**
 * The Kotlin twin of [AnnotatedService], for the `annotatedKotlin` and `kotlinCoroutine` benchmarks: the same
 * annotation on a `suspend fun` with an empty body. Open, as Spring's class-based proxies need (this module has no
 * all-open compiler plugin); a bean of [AnnotatedService.Application], beside the Java one.
 */
open class SuspendService {

    /**
     * Locks `bench:<key>`, does nothing, unlocks; a contended call skips. Spring's AOP runs it as a `Mono`, which
     * the aspect locks from its subscription until the body's coroutine has ended.
     * @param key the per-thread key
     */
    @Redlocked(key = "bench:#{#key}", ttl = "10s", onFailure = OnFailure.SKIP)
    open suspend fun locked(key: String) {
    }

    /**
     * Does nothing under an advice that only proceeds (`bridgeKotlin`): Spring's AOP for a suspend fun, no lock.
     * @param key the per-thread key
     */
    @PassThrough
    open suspend fun passThrough(key: String) {
    }

}
