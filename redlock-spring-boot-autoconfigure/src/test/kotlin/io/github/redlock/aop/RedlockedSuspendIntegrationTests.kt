package io.github.redlock.aop

import java.io.IOException
import java.time.Duration
import java.util.Optional
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.locks.LockSupport

import io.github.redlock.annotation.OnFailure
import io.github.redlock.annotation.RedlockContext
import io.github.redlock.annotation.Redlocked
import io.github.redlock.autoconfigure.RedlockAutoConfiguration
import io.github.redlock.core.Redlock
import io.github.redlock.core.RedlockAcquisitionException
import io.github.redlock.core.RedlockLease
import io.github.redlock.test.RedisClientExtension
import io.github.redlock.test.RedisNodesExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.aspectj.lang.ProceedingJoinPoint
import org.aspectj.lang.annotation.Around
import org.aspectj.lang.annotation.Aspect
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

import org.springframework.aop.support.AopUtils
import org.springframework.beans.factory.ObjectProvider
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.core.Ordered

/**
 * `@Redlocked` on Kotlin `suspend` functions. The hazard: Spring's AOP hands the advice a `Mono` that runs the
 * body only when it is subscribed, after the advice returned; an aspect that takes the call for a plain value
 * releases the lock before the body runs, so that callers overlap and another client takes the key while the
 * body works. The lock must be held from the call until the coroutine completes, fails or is cancelled, owned
 * by the coroutine (not by the threads it runs on). On three real nodes; a second [Redlock] plays the other
 * instance of the application.
 */
internal class RedlockedSuspendIntegrationTests {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisNodesExtension = RedisNodesExtension.of(3)

    }

    // A patient node timeout, as the runner's: with the default 50 ms a loaded machine's slow answer ends a release
    // before its deletes land, and the next call finds the key still taken.
    @JvmField
    @RegisterExtension
    val other: RedisClientExtension<Redlock> =
        RedisClientExtension.of(redis) { uris -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build() }

    @JvmField
    @RegisterExtension
    val keys: RedisClientExtension<NodeKeys> = RedisClientExtension.of(redis) { uris -> NodeKeys(uris) }

    private fun runner(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RedlockAutoConfiguration::class.java))
        .withBean(Probe::class.java)
        .withBean(Jobs::class.java)
        // A patient node timeout: these tests are not about timeouts, and a loaded machine answers in more than 50 ms.
        .withPropertyValues("redlock.nodes=" + redis.uris().joinToString(","), "redlock.retry-delay=20ms", "redlock.node-timeout=2s")

    @Test
    fun concurrentSuspendCallsOnOneKeyNeverOverlap() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val probe = context.getBean(Probe::class.java)
            runBlocking {
                withTimeout(60_000) {
                    List(8) { launch(Dispatchers.Default) { jobs.critical() } }.joinAll()
                }
            }
            assertThat(probe.runs.get()).`as`("calls that ran").isEqualTo(8)
            assertThat(probe.most.get()).`as`("most calls inside the body at once").isEqualTo(1)
        }
    }

    @Test
    fun keysAreEvaluatedFromEveryParameterTheLastOneIncludedByNameAndByIndex() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            runBlocking {
                withTimeout(30_000) {
                    assertThat(jobs.keyOfLast("a", "b")).isEqualTo("pair:a:b")
                    assertThat(jobs.keyOfLastByIndex("c", "d")).isEqualTo("pair:c:d")
                    assertThat(jobs.keyOfOnly("e")).isEqualTo("only:e:1")
                }
            }
        }
    }

    @Test
    fun aSecondClientCannotTakeTheKeyWhileTheBodyIsSuspendedInDelay() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            runBlocking {
                withTimeout(30_000) {
                    val entered = CompletableDeferred<Unit>()
                    val finish = CompletableDeferred<Unit>()
                    val report = async(Dispatchers.Default) { jobs.report("7", entered, finish) }
                    entered.await()
                    assertThat(tryTake("report:7")).`as`("the key taken by another client while the body is suspended").isFalse()
                    finish.complete(Unit)
                    assertThat(report.await()).isEqualTo("report 7")
                }
            }
            assertThat(take("report:7", Duration.ofSeconds(5))).`as`("the key taken once the call completed").isTrue()
        }
    }

    @Test
    fun skipReturnsNullOrAnEmptyFlowAndThrowFailsAsForJavaCallersWithoutRunningTheBody() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val probe = context.getBean(Probe::class.java)
            val holder = this.other.get().acquire("nightly", Duration.ofSeconds(10), Duration.ZERO)
            runBlocking {
                withTimeout(30_000) {
                    assertThat(jobs.nightly()).isNull()
                    assertThat(jobs.nightlyFeed().toList()).isEmpty()
                    assertThat(jobs.nightlyFeedLater().toList()).isEmpty()
                    val failure = runCatching { jobs.nightlyOrFail() }.exceptionOrNull()
                    assertThat(failure).isInstanceOf(RedlockAcquisitionException::class.java)
                    assertThat((failure as RedlockAcquisitionException).key).isEqualTo("nightly")
                    assertThat(probe.runs.get()).`as`("bodies run").isZero()
                    holder.release()
                    assertThat(jobs.nightly()).isEqualTo("ran")
                }
            }
        }
    }

    @Test
    fun cancellingACallThatWaitsForTheLockStopsItsAttemptsAndNeverRunsTheBody() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val probe = context.getBean(Probe::class.java)
            val holder = this.other.get().acquire("queue", Duration.ofSeconds(10), Duration.ZERO)
            runBlocking {
                withTimeout(30_000) {
                    val waiting = launch(Dispatchers.Default) { jobs.queued() }
                    awaitWaiting("queue")
                    waiting.cancelAndJoin()
                }
            }
            holder.release()
            // Nobody may pick the lock up for the cancelled call: it stays free for the other client.
            repeat(5) {
                assertThat(take("queue", Duration.ofSeconds(2))).`as`("the key taken by the other client, round %d", it).isTrue()
                Thread.sleep(100) // longer than a retry delay of the cancelled call, had it kept trying
            }
            assertThat(probe.runs.get()).`as`("bodies run").isZero()
        }
    }

    @Test
    fun aCallCancelledAroundTheMomentItsLockArrivesNeverLeavesTheLockTaken() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            runBlocking {
                withTimeout(60_000) {
                    repeat(150) { round ->
                        val call = launch(Dispatchers.Default) { jobs.race() }
                        LockSupport.parkNanos(round * 10_000L) // 0 to 1.5 ms: before, as and after the grant (about 0.3 ms)
                        call.cancelAndJoin()
                        // The lock's ttl is 30 s: a lock taken for the cancelled call and never let go would keep it, on a
                        // quorum or on a single node (a delete that overtook its own attempt's write).
                        assertThat(take("race", Duration.ofSeconds(2))).`as`("the key free after the cancel of round %d", round).isTrue()
                        keys.get().awaitGone("redlock:race", Duration.ofSeconds(2))
                    }
                }
            }
        }
    }

    @Test
    fun theBodyRunsOnTheCallersDispatcherAndAnUnconfinedCallersNeverOnANodeConnectionsThread() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            runBlocking {
                withTimeout(30_000) {
                    assertThat(withContext(Dispatchers.Default) { jobs.whereAmI() }).startsWith("DefaultDispatcher-worker")
                    val unconfined = withContext(Dispatchers.Unconfined) { jobs.whereAmI() }
                    assertThat(unconfined).doesNotStartWith("lettuce-").doesNotStartWith("redlock-")
                }
            }
        }
    }

    @Test
    fun cancellingTheCallingCoroutineReleasesTheLockAtOnce() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val probe = context.getBean(Probe::class.java)
            runBlocking {
                withTimeout(30_000) {
                    val entered = CompletableDeferred<Unit>()
                    val export = launch(Dispatchers.Default) { jobs.export(entered) }
                    entered.await()
                    assertThat(tryTake("export")).`as`("the key taken by another client while the body runs").isFalse()
                    val cancelled = System.nanoTime()
                    export.cancelAndJoin()
                    // The lock's ttl is 30 s: only its release lets the other client in this soon.
                    assertThat(take("export", Duration.ofSeconds(2))).`as`("the key taken within 2 s of the cancel").isTrue()
                    println("cancel to the other client's acquisition: " + (System.nanoTime() - cancelled) / 1_000_000 + " ms")
                    assertThat(probe.runs.get()).`as`("bodies that saw the cancellation").isEqualTo(1)
                }
            }
        }
    }

    @Test
    fun aCancelledBodyKeepsTheLockUntilItsBlockingWorkAndItsCleanupHaveEnded() {
        // The hazard: cancellation is cooperative, and Spring's AOP runs the body in a coroutine of its own, which the
        // caller's cancel only asks to stop. Blocking work in withContext(Dispatchers.IO) runs on to its end, and a
        // finally block in withContext(NonCancellable) runs after the cancel; a lock let go at the cancel leaves both
        // to run while another client holds the key.
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            context.getBean(Probe::class.java).elsewhere.set(this.other.get())
            runBlocking {
                withTimeout(30_000) {
                    val entered = CompletableDeferred<Unit>()
                    val ended = CompletableDeferred<Map<String, String>>()
                    val write = launch(Dispatchers.Default) { jobs.write(entered, ended) }
                    entered.await()
                    write.cancelAndJoin()
                    assertThat(ended.await()).`as`("whether another client could take the key in the cancelled body")
                        .containsEntry("blocking write", "held").containsEntry("cleanup", "held")
                }
            }
            assertThat(take("ledger-write", Duration.ofSeconds(2))).`as`("the key taken once the body ended").isTrue()
        }
    }

    @Test
    fun aNestedCallReentersTheLockAcrossSuspensionsAndDispatcherSwitches() {
        val caller = Executors.newSingleThreadExecutor { task -> Thread(task, "ledger-caller") }.asCoroutineDispatcher()
        try {
            runner().run { context ->
                val jobs = context.getBean(Jobs::class.java)
                context.getBean(Probe::class.java).elsewhere.set(this.other.get())
                val seen = runBlocking(caller) { withTimeout(30_000) { jobs.settle() } }
                val token = seen.getValue("outer")
                assertThat(seen).containsEntry("after delay", token).containsEntry("inner", token)
                    .containsEntry("inner after delay", token).containsEntry("blocking inner", token)
                    .containsEntry("other client", "refused")
                // (a coroutine's thread name ends with " @coroutine#n" where assertions turn on the coroutines' debug mode)
                assertThat(seen.getValue("outer thread")).startsWith("ledger-caller")
                assertThat(seen.getValue("inner thread")).doesNotStartWith("ledger-caller")
            }
        }
        finally {
            caller.close()
        }
    }

    @Test
    fun anotherCoroutineOnTheSameThreadDoesNotShareTheHold() {
        val single = Executors.newSingleThreadExecutor { task -> Thread(task, "shared") }.asCoroutineDispatcher()
        try {
            runner().run { context ->
                val jobs = context.getBean(Jobs::class.java)
                runBlocking(single) {
                    withTimeout(30_000) {
                        val entered = CompletableDeferred<Unit>()
                        val done = CompletableDeferred<Unit>()
                        val first = launch { jobs.hold(entered, done) }
                        entered.await()
                        val second = runCatching { jobs.hold(CompletableDeferred(), CompletableDeferred(Unit)) }.exceptionOrNull()
                        done.complete(Unit)
                        first.join()
                        assertThat(second).`as`("the second coroutine's call, on the first one's thread")
                            .isInstanceOf(RedlockAcquisitionException::class.java)
                    }
                }
            }
        }
        finally {
            single.close()
        }
    }

    @Test
    fun theLossOfTheLeaseCancelsTheCoroutineWithinABound() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val probe = context.getBean(Probe::class.java)
            val lostAt = AtomicLong()
            val seenByCaller = AtomicReference<Throwable>()
            runBlocking {
                val rebuild = launch(Dispatchers.Default) {
                    try {
                        jobs.rebuild(lostAt)
                    }
                    catch (ex: CancellationException) {
                        seenByCaller.set(ex)
                        throw ex
                    }
                }
                try {
                    withTimeout(5_000) { rebuild.join() }
                }
                finally {
                    rebuild.cancel()
                }
                val ended = System.nanoTime()
                assertThat(rebuild.isCancelled).isTrue()
                assertThat(lostAt.get()).`as`("the loss was signalled").isNotZero()
                val lossToEnd = Duration.ofNanos(ended - lostAt.get())
                println("loss to the end of the cancelled coroutine: " + lossToEnd.toMillis() + " ms")
                assertThat(lossToEnd).isLessThan(Duration.ofMillis(500))
            }
            for (seen in listOf(probe.bodyCancellation.get(), seenByCaller.get())) {
                assertThat(causes(seen)).anySatisfy { cause ->
                    assertThat(cause).isInstanceOf(IllegalStateException::class.java).hasMessageContaining("'rebuild'")
                        .hasMessageContaining("lost")
                }
            }
        }
    }

    @Test
    fun aFlowResultIsHeldFromCollectionToCompletion() {
        runner().run { context ->
            val jobs = context.getBean(Jobs::class.java)
            context.getBean(Probe::class.java).elsewhere.set(this.other.get())
            for (name in listOf("feed", "feedLater")) {
                val feed: Flow<String> = runBlocking { if (name == "feed") jobs.feed() else jobs.feedLater() }
                assertThat(take("feed", Duration.ZERO)).`as`("$name: the key taken before the collection").isTrue()
                val emitted = runBlocking { withTimeout(30_000) { feed.toList() } }
                assertThat(emitted).`as`("$name: whether another client could take the key as each item was emitted")
                    .containsExactly("1 held", "2 held", "3 held")
                assertThat(take("feed", Duration.ofSeconds(2))).`as`("$name: the key taken after the collection").isTrue()
            }
        }
    }

    @Test
    fun skipOnASuspendFunctionThatCannotReturnNullStopsTheStartUp() {
        ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RedlockAutoConfiguration::class.java))
            .withBean(NotNullSkip::class.java)
            .withPropertyValues("redlock.nodes=" + redis.uris().joinToString(","))
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause().isInstanceOf(RedlockConfigurationException::class.java)
                    .hasMessageContaining("NotNullSkip.count()").hasMessageContaining("SKIP")
            }
    }

    @Test
    fun interruptOnLossOnASuspendFunctionReturningAFlowStopsTheStartUp() {
        ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RedlockAutoConfiguration::class.java))
            .withBean(InterruptedFlow::class.java)
            .withPropertyValues("redlock.nodes=" + redis.uris().joinToString(","))
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause().isInstanceOf(RedlockConfigurationException::class.java)
                    .hasMessageContaining("InterruptedFlow.numbers()").hasMessageContaining("interruptOnLoss")
            }
    }

    /**
     * With no other advice inside its own, the aspect starts the body's coroutine itself instead of proceeding through
     * Spring's bridge (which pays Kotlin reflection on every call): what the body throws, before or after it
     * suspends, and checked or not, reaches the caller as it was thrown, with the lock let go; value classes in and
     * out arrive as they were passed and returned (a value class result goes through Spring's bridge, which unboxes it).
     */
    @Test
    fun theBodyStartedWithoutSpringsBridgeThrowsAndReturnsAsItWouldUnlocked() {
        runner().withBean(Tickets::class.java).run { context ->
            val tickets = context.getBean(Tickets::class.java)
            val probe = context.getBean(Probe::class.java)
            runBlocking {
                withTimeout(30_000) {
                    val now = runCatching { tickets.failNow() }.exceptionOrNull()
                    assertThat(now).isInstanceOf(IOException::class.java).hasMessage("before suspending")
                    val later = runCatching { tickets.failLater() }.exceptionOrNull()
                    assertThat(later).isInstanceOf(IOException::class.java).hasMessage("after suspending")
                    assertThat(tickets.stamp(Ticket("t-1"))).isEqualTo("tickets: t-1")
                    assertThat(probe.bridged.get()).`as`("the body run through Spring's bridge").isFalse()
                    assertThat(tickets.renew(Ticket("t-2"))).isEqualTo(Ticket("t-2+"))
                    assertThat(tickets.renewNow(Ticket("t-3"))).isEqualTo(Ticket("t-3!"))
                    assertThat(tickets.nothing()).isNull()
                    // A null argument for a parameter with a default: Spring's bridge lets it take the default.
                    assertThat(tickets.defaulted(null)).isEqualTo("tickets: default")
                    assertThat(probe.bridged.get()).`as`("a function with a default run through Spring's bridge").isTrue()
                }
            }
            assertThat(tryTake("tickets")).`as`("the key free after the calls").isTrue()
        }
    }

    /** The same through a JDK proxy, which calls the implementation's method through its interface's. */
    @Test
    fun theBodyStartedWithoutSpringsBridgeThroughAnInterfaceProxy() {
        runner().withBean(InterfaceStamper::class.java).withPropertyValues("spring.aop.proxy-target-class=false").run { context ->
            val stamper = context.getBean(Stamper::class.java)
            val probe = context.getBean(Probe::class.java)
            assertThat(AopUtils.isJdkDynamicProxy(stamper)).isTrue()
            runBlocking {
                withTimeout(30_000) {
                    assertThat(stamper.stamp("i-1")).isEqualTo("stamper: i-1")
                    assertThat(probe.bridged.get()).`as`("the body run through Spring's bridge").isFalse()
                }
            }
        }
    }

    /**
     * The hazard of starting the body without proceeding (which skips Spring's per-call Kotlin reflection, see
     * [theBodyStartedWithoutSpringsBridgeThrowsAndReturnsAsItWouldUnlocked]): advice inside this one runs in
     * `proceed()`. With another aspect's advice inside, the call must proceed through it, only under the lock, and
     * never when skipped.
     */
    @Test
    fun anAdviceInsideTheLockRunsOnlyUnderTheLockAndNeverForASkippedCall() {
        runner()
            .withBean(Inner::class.java)
            .withBean(Guarded::class.java)
            .run { context ->
                val guarded = context.getBean(Guarded::class.java)
                val inner = context.getBean(Inner::class.java)
                val holder = this.other.get().acquire("guarded", Duration.ofSeconds(10), Duration.ZERO)
                runBlocking {
                    withTimeout(30_000) {
                        assertThat(guarded.skipped()).isNull()
                        assertThat(inner.calls.get()).`as`("inner advice calls for a skipped call").isZero()
                        val waiting = async(Dispatchers.Default) { guarded.waited() }
                        awaitWaiting("guarded")
                        val released = System.nanoTime()
                        holder.release()
                        assertThat(waiting.await()).isEqualTo("ran")
                        assertThat(inner.calls.get()).`as`("inner advice calls").isEqualTo(1)
                        assertThat(inner.last.get() - released).`as`("ns from the other client's release to the inner advice")
                            .isPositive()
                        assertThat(context.getBean(Probe::class.java).bridged.get()).`as`("the body run through Spring's bridge")
                            .isTrue()
                    }
                }
                // The same holds without waiting: the advice inside runs for the calls whose lock was taken, only.
                runBlocking {
                    withTimeout(30_000) {
                        assertThat(guarded.skipped()).isEqualTo("ran")
                        assertThat(inner.calls.get()).`as`("inner advice calls").isEqualTo(2)
                    }
                }
            }
    }

    /** Whether the other client took the key at once (it lets go of it again). */
    private fun tryTake(key: String): Boolean = take(key, Duration.ZERO)

    /** Whether the other client takes the key within the wait (it lets go of it again, and its nodes confirm that). */
    private fun take(key: String, wait: Duration): Boolean {
        val lease: Optional<RedlockLease> = this.other.get().tryAcquire(key, Duration.ofSeconds(5), wait)
        lease.ifPresent { assertThat(it.release()).`as`("the other client's release of '%s' confirmed by a quorum", key).isTrue() }
        return lease.isPresent
    }

    /** Waits until a call was refused [key] and waits for its release: its record of waiting is on the nodes. */
    private fun awaitWaiting(key: String) {
        val record = "redlock:" + key + "\u00FFwaiting"
        NodeKeys.await({ this.keys.get().holding(record) > 0 }, Duration.ofSeconds(10)) { "no call waited for '$key' within 10 s" }
    }

    private fun causes(thrown: Throwable?): List<Throwable> = generateSequence(thrown) { it.cause }.take(10).toList()

    /** What the bodies did, outside the proxied bean (a CGLIB proxy's own fields are never set). */
    class Probe {

        val runs = AtomicInteger()

        val inside = AtomicInteger()

        val most = AtomicInteger()

        val bodyCancellation = AtomicReference<Throwable>()

        /** Whether the last body that looked was started by Spring's bridge (its Kotlin reflection on the stack). */
        val bridged = AtomicReference<Boolean>()

        /** The other client, for a body that checks whether it could take the key. */
        val elsewhere = AtomicReference<Redlock>()

    }

    open class Jobs(private val probe: Probe, private val self: ObjectProvider<Jobs>) {

        @Redlocked(key = "counter", ttl = "10s", waitTime = "30s")
        open suspend fun critical() {
            val now = this.probe.inside.incrementAndGet()
            this.probe.most.accumulateAndGet(now, Math::max)
            delay(30)
            this.probe.inside.decrementAndGet()
            this.probe.runs.incrementAndGet()
        }

        @Redlocked(key = "queue", ttl = "10s", waitTime = "30s")
        open suspend fun queued() {
            this.probe.runs.incrementAndGet()
        }

        // Skipped when refused: the cancel ends the caller's wait at once, and the attempt it stops may still be on its way
        // to the nodes, take the key for a moment and let it go (a cancel cannot call back what was sent), while the
        // next round's call tries. A refusal then is no leak; a key still held 2 s after the cancel is.
        @Redlocked(key = "race", ttl = "30s", onFailure = OnFailure.SKIP)
        open suspend fun race() {
        }

        @Redlocked(key = "where", ttl = "10s")
        open suspend fun whereAmI(): String = Thread.currentThread().name

        @Redlocked(key = "pair:#{#first}:#{#last}", ttl = "10s")
        open suspend fun keyOfLast(first: String, last: String): String = currentKey()

        @Redlocked(key = "pair:#{#p0}:#{#a1}", ttl = "10s")
        open suspend fun keyOfLastByIndex(first: String, last: String): String = currentKey()

        @Redlocked(key = "only:#{#only}:#{#root.args.length}", ttl = "10s")
        open suspend fun keyOfOnly(only: String): String = currentKey()

        private fun currentKey(): String = RedlockContext.currentLease().map { it.key() }.orElse("none")

        @Redlocked(key = "report:#{#id}", ttl = "10s")
        open suspend fun report(id: String, entered: CompletableDeferred<Unit>, finish: CompletableDeferred<Unit>): String {
            entered.complete(Unit)
            while (!finish.isCompleted) {
                delay(20)
            }
            return "report $id"
        }

        @Redlocked(key = "nightly", onFailure = OnFailure.SKIP)
        open suspend fun nightly(): String? {
            this.probe.runs.incrementAndGet()
            delay(1)
            return "ran"
        }

        @Redlocked(key = "nightly")
        open suspend fun nightlyOrFail(): String {
            this.probe.runs.incrementAndGet()
            return "ran"
        }

        @Redlocked(key = "nightly", onFailure = OnFailure.SKIP)
        open fun nightlyFeed(): Flow<Int> = flow {
            this@Jobs.probe.runs.incrementAndGet()
            emit(1)
        }

        @Redlocked(key = "nightly", onFailure = OnFailure.SKIP)
        open suspend fun nightlyFeedLater(): Flow<Int> {
            this.probe.runs.incrementAndGet()
            return flow { emit(1) }
        }

        @Redlocked(key = "export", ttl = "30s")
        open suspend fun export(entered: CompletableDeferred<Unit>) {
            entered.complete(Unit)
            try {
                awaitCancellation()
            }
            finally {
                this.probe.runs.incrementAndGet()
            }
        }

        @Redlocked(key = "ledger-write", ttl = "30s")
        open suspend fun write(entered: CompletableDeferred<Unit>, ended: CompletableDeferred<Map<String, String>>) {
            val seen = linkedMapOf<String, String>()
            try {
                withContext(Dispatchers.IO) {
                    entered.complete(Unit)
                    Thread.sleep(300) // a blocking write, which the cancellation does not stop
                    seen["blocking write"] = heldFromElsewhere("ledger-write")
                }
            }
            finally {
                withContext(NonCancellable) {
                    delay(100)
                    seen["cleanup"] = heldFromElsewhere("ledger-write")
                }
                ended.complete(seen)
            }
        }

        /** Whether the other client is refused the key ("held"), or took it ("free"; it lets go of it again). */
        private fun heldFromElsewhere(key: String): String {
            val taken = this.probe.elsewhere.get().tryAcquire(key, Duration.ofSeconds(5))
            taken.ifPresent { it.release() }
            return if (taken.isPresent) "free" else "held"
        }

        @Redlocked(key = "ledger", ttl = "10s", waitTime = "0s")
        open suspend fun settle(): Map<String, String> {
            val seen = linkedMapOf<String, String>()
            seen["outer"] = RedlockContext.currentLease().orElseThrow().token()
            seen["outer thread"] = Thread.currentThread().name
            delay(10)
            seen["after delay"] = currentToken()
            withContext(Dispatchers.IO) {
                seen.putAll(this@Jobs.self.getObject().post())
                seen["blocking inner"] = this@Jobs.self.getObject().postBlocking()
            }
            return seen
        }

        @Redlocked(key = "ledger", ttl = "10s", waitTime = "0s")
        open suspend fun post(): Map<String, String> {
            val seen = linkedMapOf("inner" to currentToken(), "inner thread" to Thread.currentThread().name)
            delay(10)
            seen["inner after delay"] = currentToken()
            val taken = this.probe.elsewhere.get().tryAcquire("ledger", Duration.ofSeconds(1))
            taken.ifPresent { it.release() }
            seen["other client"] = if (taken.isPresent) "took it" else "refused"
            return seen
        }

        /** A nested call of a method that is not a suspend function, made in the coroutine. */
        @Redlocked(key = "ledger", ttl = "10s", waitTime = "0s")
        open fun postBlocking(): String = currentToken()

        @Redlocked(key = "shared-thread", ttl = "10s", waitTime = "0s")
        open suspend fun hold(entered: CompletableDeferred<Unit>, done: CompletableDeferred<Unit>) {
            entered.complete(Unit)
            done.await()
        }

        @Redlocked(key = "rebuild", ttl = "400ms", interruptOnLoss = true)
        open suspend fun rebuild(lostAt: AtomicLong) {
            RedlockContext.currentLease().orElseThrow().lost().thenRun { lostAt.set(System.nanoTime()) }
            try {
                delay(10_000)
            }
            catch (ex: CancellationException) {
                this.probe.bodyCancellation.set(ex)
                throw ex
            }
        }

        @Redlocked(key = "feed", ttl = "10s")
        open fun feed(): Flow<String> = numbers()

        @Redlocked(key = "feed", ttl = "10s")
        open suspend fun feedLater(): Flow<String> {
            delay(1)
            return numbers()
        }

        /** Items that say whether the other client could take the key as each was emitted. */
        private fun numbers(): Flow<String> = flow {
            for (i in 1..3) {
                delay(20)
                val taken = this@Jobs.probe.elsewhere.get().tryAcquire("feed", Duration.ofSeconds(5))
                taken.ifPresent { it.release() }
                emit("$i " + if (taken.isPresent) "free" else "held")
            }
        }

        private fun currentToken(): String = RedlockContext.currentLease().map { it.token() }.orElse("none")

    }

    /** A value class, passed unboxed and returned boxed by a suspend function. */
    @JvmInline
    value class Ticket(val id: String)

    open class Tickets(private val probe: Probe) {

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun failNow(): String = throw IOException("before suspending")

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun failLater(): String {
            delay(5)
            throw IOException("after suspending")
        }

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun stamp(ticket: Ticket): String {
            this.probe.bridged.set(startedBySpringsBridge())
            delay(5)
            return RedlockContext.currentLease().map { it.key() }.orElse("none") + ": " + ticket.id
        }

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun renew(ticket: Ticket): Ticket {
            delay(5)
            return Ticket(ticket.id + "+")
        }

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun renewNow(ticket: Ticket): Ticket = Ticket(ticket.id + "!")

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun nothing(): String? {
            delay(5)
            return null
        }

        @Redlocked(key = "tickets", ttl = "10s")
        open suspend fun defaulted(id: String? = "default"): String {
            this.probe.bridged.set(startedBySpringsBridge())
            delay(5)
            return RedlockContext.currentLease().map { it.key() }.orElse("none") + ": " + id
        }

    }

    interface Stamper {

        suspend fun stamp(id: String): String

    }

    class InterfaceStamper(private val probe: Probe) : Stamper {

        @Redlocked(key = "stamper", ttl = "10s")
        override suspend fun stamp(id: String): String {
            this.probe.bridged.set(startedBySpringsBridge())
            delay(5)
            return RedlockContext.currentLease().map { it.key() }.orElse("none") + ": " + id
        }

    }

    /** Calls that another aspect advises inside `@Redlocked` (see [Inner]). */
    open class Guarded(private val probe: Probe) {

        @Redlocked(key = "guarded", ttl = "10s", onFailure = OnFailure.SKIP)
        open suspend fun skipped(): String? = "ran"

        @Redlocked(key = "guarded", ttl = "10s", waitTime = "20s")
        open suspend fun waited(): String {
            this.probe.bridged.set(startedBySpringsBridge())
            return "ran"
        }

    }

    /** An aspect ordered inside [RedlockedAspect]'s advice, which counts the calls that proceed to it and their time. */
    @Aspect
    class Inner : Ordered {

        val calls = AtomicInteger()

        val last = AtomicLong()

        @Around("execution(* io.github.redlock.aop.RedlockedSuspendIntegrationTests.Guarded.*(..))")
        fun count(joinPoint: ProceedingJoinPoint): Any? {
            this.last.set(System.nanoTime())
            this.calls.incrementAndGet()
            return joinPoint.proceed()
        }

        override fun getOrder(): Int = RedlockedAspect.DEFAULT_ORDER + 1

    }

    open class NotNullSkip {

        @Redlocked(key = "count", onFailure = OnFailure.SKIP)
        open suspend fun count(): Int = 1

    }

    open class InterruptedFlow {

        @Redlocked(key = "numbers", interruptOnLoss = true)
        open suspend fun numbers(): Flow<Int> = flow { emit(1) }

    }

}

/** Whether the running coroutine was started by Spring's AOP bridge: its Kotlin reflection call is on the stack. */
private fun startedBySpringsBridge(): Boolean =
    Thread.currentThread().stackTrace.any { it.className == "org.springframework.core.CoroutinesUtils" || it.className == "kotlin.reflect.full.KCallables" }
