@file:JvmName("SuspendCalls")

package io.github.redlock.benchmarks

import java.util.function.Supplier

import kotlinx.coroutines.runBlocking

/**
 * One call from a thread that is not a coroutine's, as a Kotlin caller on a plain thread (a JMH thread, a servlet
 * thread, a scheduler's) makes it: `runBlocking` starts a coroutine on the calling thread and parks the thread
 * until the call has ended, the way the Java method's caller is blocked until its call returns.
 */
fun callBlocking(service: SuspendService, key: String) {
    runBlocking {
        service.locked(key)
    }
}

/**
 * [times] calls, one after the other, from one coroutine, as a coroutine application makes them: each call suspends
 * the coroutine until it has ended; `runBlocking`'s own cost is spread over the [times] calls.
 */
fun callInCoroutine(service: SuspendService, keys: Supplier<String>, times: Int) {
    runBlocking {
        repeat(times) {
            service.locked(keys.get())
        }
    }
}

/** One call of [SuspendService.passThrough] from a plain thread, as [callBlocking] makes its call. */
fun passThroughBlocking(service: SuspendService, key: String) {
    runBlocking {
        service.passThrough(key)
    }
}
