package io.github.redlock.aop

import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.Continuation

import io.github.redlock.annotation.RedlockContext
import io.github.redlock.annotation.Redlocked
import io.github.redlock.autoconfigure.RedlockAutoConfiguration
import io.github.redlock.core.Redlock
import io.github.redlock.core.RedlockAcquisitionException
import io.github.redlock.test.RedisClientExtension
import io.github.redlock.test.RedisNodesExtension
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactor.asCoroutineContext
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import reactor.core.publisher.Mono
import reactor.core.scheduler.Schedulers

import org.springframework.beans.factory.ObjectProvider
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.cache.annotation.Cacheable
import org.springframework.cache.annotation.EnableCaching
import org.springframework.cache.concurrent.ConcurrentMapCacheManager
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.security.access.prepost.PreAuthorize
import org.springframework.security.authentication.TestingAuthenticationToken
import org.springframework.security.access.AccessDeniedException
import org.springframework.security.config.annotation.method.configuration.EnableReactiveMethodSecurity
import org.springframework.security.core.context.ReactiveSecurityContextHolder
import org.springframework.transaction.NoTransactionException
import org.springframework.transaction.TransactionDefinition
import org.springframework.transaction.annotation.EnableTransactionManagement
import org.springframework.transaction.annotation.Transactional
import org.springframework.transaction.reactive.AbstractReactiveTransactionManager
import org.springframework.transaction.reactive.GenericReactiveTransaction
import org.springframework.transaction.reactive.TransactionSynchronizationManager

/**
 * The lock's advice calls a Kotlin `suspend` function around Spring's AOP bridge only where it is the innermost advice
 * of the function ([DirectSuspendCall]); every other advice (Spring's transactions, caching and method security here)
 * still runs, in its order, inside or outside the lock as the orders say. Each case runs with the lock outside the
 * other advice and inside it, and checks both what the other advice did and whether the call went around the bridge.
 * The order is shown by what each side sees of the other: a transaction begun while the lock is held or not, a cached
 * result served while another client holds the lock or not, a refused caller refused before or after the lock is
 * taken. On three real nodes; a second [Redlock] plays another instance of the application.
 */
internal class DirectSuspendCallIntegrationTests {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisNodesExtension = RedisNodesExtension.of(3)

        /** Before every advice of Spring Security's method security ([PreAuthorize] is at 200), after none. */
        const val OUTERMOST = 100

        /** Spring's default for transactions and caching: inside the lock at its own default order. */
        const val INNERMOST = Int.MAX_VALUE

    }

    @JvmField
    @RegisterExtension
    val other: RedisClientExtension<Redlock> =
        RedisClientExtension.of(redis) { uris -> Redlock.builder().nodes(uris).nodeTimeout(Duration.ofSeconds(2)).build() }

    private fun runner(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RedlockAutoConfiguration::class.java))
        .withBean(Events::class.java)
        // A patient node timeout: these tests are about the order of advice, not about timeouts.
        .withPropertyValues("redlock.nodes=" + redis.uris().joinToString(","), "redlock.node-timeout=2s")

    private fun suspendMethod(type: Class<*>, name: String, vararg parameters: Class<*>) =
        type.getMethod(name, *parameters, Continuation::class.java)

    private fun calledDirectly(context: AssertableApplicationContext, type: Class<*>, name: String, vararg parameters: Class<*>) =
        context.getBean(RedlockedAspect::class.java).calledDirectly(suspendMethod(type, name, *parameters), type)

    @Test
    fun theLockAloneIsCalledAroundTheBridgeAndStillHoldsTheKeyWhileTheBodyRuns() {
        runner().withBean(Plain::class.java).run { context ->
            val plain = context.getBean(Plain::class.java)
            runBlocking { withTimeout(30_000) { assertThat(plain.run()).isEqualTo("held: true") } }
            assertThat(calledDirectly(context, Plain::class.java, "run")).`as`("called around the bridge").isTrue()
        }
    }

    @Test
    fun aTransactionInsideTheLockBeginsAndCommitsWhileTheLockIsHeldThroughSpringsBridge() {
        runner().withUserConfiguration(InnerTransactions::class.java).withBean(Ledger::class.java).run { context ->
            val ledger = context.getBean(Ledger::class.java)
            val events = context.getBean(Events::class.java)
            runBlocking { withTimeout(30_000) { assertThat(ledger.post("a")).isEqualTo("posted a") } }
            assertThat(events.list).containsExactly("begin, lock held: true", "body, in a transaction: true",
                "commit, lock held: true")
            assertThat(calledDirectly(context, Ledger::class.java, "post", String::class.java))
                .`as`("a transaction runs inside the lock: through Spring's bridge").isFalse()
        }
    }

    @Test
    fun aTransactionOutsideTheLockBeginsBeforeTheLockIsTakenAndTheLockIsCalledAroundTheBridge() {
        runner().withUserConfiguration(OuterTransactions::class.java).withBean(Ledger::class.java).run { context ->
            val ledger = context.getBean(Ledger::class.java)
            val events = context.getBean(Events::class.java)
            runBlocking { withTimeout(30_000) { assertThat(ledger.post("b")).isEqualTo("posted b") } }
            assertThat(events.list).hasSize(3)
            assertThat(events.list[0]).isEqualTo("begin, lock held: false")
            assertThat(events.list[1]).`as`("the transaction, still there around the direct call")
                .isEqualTo("body, in a transaction: true")
            assertThat(events.list[2]).startsWith("commit")
            assertThat(calledDirectly(context, Ledger::class.java, "post", String::class.java)).isTrue()
        }
    }

    @Test
    fun aCacheOutsideTheLockAnswersWithoutTakingTheLockAndOneInsideOnlyOnceTheLockIsTaken() {
        runner().withUserConfiguration(OuterCaching::class.java).withBean(Prices::class.java).run { context ->
            val prices = context.getBean(Prices::class.java)
            runBlocking { withTimeout(30_000) { assertThat(prices.price("x")).isEqualTo("price of x, 1") } }
            this.other.get().acquire("prices", Duration.ofSeconds(10), Duration.ZERO).use {
                runBlocking {
                    withTimeout(30_000) {
                        assertThat(prices.price("x")).`as`("cached, outside the lock that another client holds")
                            .isEqualTo("price of x, 1")
                    }
                }
            }
            assertThat(calledDirectly(context, Prices::class.java, "price", String::class.java)).isTrue()
        }
        runner().withUserConfiguration(InnerCaching::class.java).withBean(Prices::class.java).run { context ->
            val prices = context.getBean(Prices::class.java)
            runBlocking { withTimeout(30_000) { assertThat(prices.price("y")).isEqualTo("price of y, 1") } }
            this.other.get().acquire("prices", Duration.ofSeconds(10), Duration.ZERO).use {
                val refused = runBlocking { withTimeout(30_000) { runCatching { prices.price("y") }.exceptionOrNull() } }
                assertThat(refused).`as`("the lock first, which another client holds")
                    .isInstanceOf(RedlockAcquisitionException::class.java)
            }
            runBlocking {
                withTimeout(30_000) {
                    // The cache's advice answers with the value itself, not the body's Mono: the lock lets go all the same.
                    assertThat(prices.price("y")).`as`("then the cache, inside the lock").isEqualTo("price of y, 1")
                }
            }
            assertThat(this.other.get().tryAcquire("prices", Duration.ofSeconds(10), Duration.ofSeconds(5)).map { it.use { true } })
                .`as`("released after the cached answer").contains(true)
            assertThat(calledDirectly(context, Prices::class.java, "price", String::class.java)).isFalse()
        }
    }

    @Test
    fun aSecurityCheckOutsideTheLockRefusesBeforeTheLockAndOneInsideAfterIt() {
        // Spring Security's advice at its own order, 200: the lock's default order puts the lock inside it.
        runner().withUserConfiguration(Security::class.java).withBean(Vault::class.java).run { context ->
            val vault = context.getBean(Vault::class.java)
            this.other.get().acquire("vault", Duration.ofSeconds(10), Duration.ZERO).use {
                assertThat(refusal { vault.open() }).`as`("refused before the lock, which another client holds")
                    .isInstanceOf(AccessDeniedException::class.java)
            }
            assertThat(runBlocking { withTimeout(30_000) { withContext(admin()) { vault.open() } } }).isEqualTo("opened, held: true")
            assertThat(calledDirectly(context, Vault::class.java, "open")).isTrue()
        }
        runner().withUserConfiguration(Security::class.java).withBean(Vault::class.java)
            .withPropertyValues("redlock.aspect-order=$OUTERMOST").run { context ->
                val vault = context.getBean(Vault::class.java)
                this.other.get().acquire("vault", Duration.ofSeconds(10), Duration.ZERO).use {
                    assertThat(refusal { vault.open() }).`as`("the lock first, which another client holds")
                        .isInstanceOf(RedlockAcquisitionException::class.java)
                }
                assertThat(refusal { vault.open() }).`as`("then the check, inside the lock").isInstanceOf(AccessDeniedException::class.java)
                assertThat(runBlocking { withTimeout(30_000) { withContext(admin()) { vault.open() } } }).isEqualTo("opened, held: true")
                assertThat(calledDirectly(context, Vault::class.java, "open")).isFalse()
            }
    }

    /** What a call as a user without the role throws. */
    private fun refusal(call: suspend () -> String): Throwable? =
        runBlocking { withTimeout(30_000) { runCatching { withContext(user()) { call() } }.exceptionOrNull() } }

    private fun admin() = ReactiveSecurityContextHolder.withAuthentication(TestingAuthenticationToken("ops", "", "ROLE_ADMIN"))
        .asCoroutineContext()

    private fun user() = ReactiveSecurityContextHolder.withAuthentication(TestingAuthenticationToken("guest", "", "ROLE_USER"))
        .asCoroutineContext()

    /** What the advice and the bodies saw, in order. */
    class Events {

        val list: MutableList<String> = CopyOnWriteArrayList()

    }

    open class Plain {

        @Redlocked(key = "plain", ttl = "10s")
        open suspend fun run(): String {
            delay(5)
            return "held: " + RedlockContext.currentLease().isPresent
        }

    }

    open class Ledger(private val events: Events) {

        @Redlocked(key = "ledger", ttl = "10s")
        @Transactional
        open suspend fun post(entry: String): String {
            delay(5)
            val inTransaction = try {
                TransactionSynchronizationManager.forCurrentTransaction().awaitSingle().isActualTransactionActive
            }
            catch (ex: NoTransactionException) {
                false
            }
            this.events.list.add("body, in a transaction: $inTransaction")
            return "posted $entry"
        }

    }

    open class Prices {

        private val bodies = AtomicInteger()

        @Redlocked(key = "prices", ttl = "10s")
        @Cacheable("prices")
        open suspend fun price(sku: String): String {
            delay(5)
            return "price of $sku, " + this.bodies.incrementAndGet()
        }

    }

    open class Vault {

        @Redlocked(key = "vault", ttl = "10s")
        @PreAuthorize("hasRole('ADMIN')")
        open suspend fun open(): String {
            delay(5)
            return "opened, held: " + RedlockContext.currentLease().isPresent
        }

    }

    /** Transactions inside the lock (Spring's default order), with a manager that records its steps. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = INNERMOST)
    open class InnerTransactions {

        @Bean
        open fun transactionManager(events: Events, redlock: ObjectProvider<Redlock>): Recording = Recording(events, redlock)

    }

    /** Transactions outside the lock. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = OUTERMOST)
    open class OuterTransactions {

        @Bean
        open fun transactionManager(events: Events, redlock: ObjectProvider<Redlock>): Recording = Recording(events, redlock)

    }

    /** A reactive transaction manager that records its steps; the transactions are Spring's own. */
    class Recording(private val events: Events, private val redlock: ObjectProvider<Redlock>) : AbstractReactiveTransactionManager() {

        private fun held() = this.redlock.getObject().inspect("ledger").held()

        override fun doGetTransaction(synchronizationManager: TransactionSynchronizationManager): Any = Any()

        override fun doBegin(synchronizationManager: TransactionSynchronizationManager, transaction: Any,
                definition: TransactionDefinition): Mono<Void> =
            Mono.fromRunnable<Void> { this.events.list.add("begin, lock held: " + held()) }.subscribeOn(Schedulers.boundedElastic())

        override fun doCommit(synchronizationManager: TransactionSynchronizationManager, status: GenericReactiveTransaction): Mono<Void> =
            Mono.fromRunnable<Void> { this.events.list.add("commit, lock held: " + held()) }.subscribeOn(Schedulers.boundedElastic())

        override fun doRollback(synchronizationManager: TransactionSynchronizationManager, status: GenericReactiveTransaction): Mono<Void> =
            Mono.fromRunnable<Void> { this.events.list.add("rollback") }

    }

    /** A cache inside the lock (Spring's default order). */
    @Configuration(proxyBeanMethods = false)
    @EnableCaching(order = INNERMOST)
    open class InnerCaching {

        @Bean
        open fun cacheManager(): ConcurrentMapCacheManager = ConcurrentMapCacheManager("prices")

    }

    /** A cache outside the lock. */
    @Configuration(proxyBeanMethods = false)
    @EnableCaching(order = OUTERMOST)
    open class OuterCaching {

        @Bean
        open fun cacheManager(): ConcurrentMapCacheManager = ConcurrentMapCacheManager("prices")

    }

    @Configuration(proxyBeanMethods = false)
    @EnableReactiveMethodSecurity
    open class Security

}
