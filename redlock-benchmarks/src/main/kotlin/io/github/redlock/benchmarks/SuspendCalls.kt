@file:JvmName("SuspendCalls")

package io.github.redlock.benchmarks

import java.time.Duration
import java.util.function.Supplier

import io.github.redlock.core.Redlock
import kotlinx.coroutines.future.await
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

/**
 * The lock taken and released by hand from a coroutine, awaiting the core's futures, with no aspect (`coroutineRedlock`):
 * what a Kotlin caller pays for the protocol against a Java thread that blocks in `tryAcquire` and `release` (`redlock`).
 */
fun lockUnlockAwaiting(redlock: Redlock, key: String, ttl: Duration): Boolean = runBlocking {
    val lease = redlock.tryAcquireAsync(key, ttl, Duration.ZERO).await()
    lease.isPresent && lease.get().releaseAsync().await()
}
