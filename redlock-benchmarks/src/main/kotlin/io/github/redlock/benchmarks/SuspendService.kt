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
     *
     * `call` is not used: it keeps `key` from being the last parameter. On a suspend fun the aspect drops the
     * `Continuation` from the arguments before Spring's `MethodBasedEvaluationContext`, which drops the last
     * argument of a suspend function once more, so that the last parameter's name evaluates to null
     * ("the part #{#key} evaluated to null"); the template stays the Java twin's.
     * @param key the per-thread key
     * @param call unused
     */
    @Redlocked(key = "bench:#{#key}", ttl = "10s", onFailure = OnFailure.SKIP)
    open suspend fun locked(key: String, call: Int) {
    }

}
