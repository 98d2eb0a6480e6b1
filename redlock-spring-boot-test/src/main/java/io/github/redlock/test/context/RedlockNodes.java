package io.github.redlock.test.context;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.test.RedisNodes;

/**
 * Runs the application context of a Spring test ({@code @SpringBootTest} or a test slice that includes the Redlock
 * auto-configuration) against {@link #count()} real {@code redis-server} processes on free loopback ports:
 * <ul>
 * <li>the nodes start with the application context, and stop when it closes: test classes whose configuration is
 * the same share one context, hence one set of nodes, through Spring's context cache;</li>
 * <li>a {@link RedlockConnectionDetails} bean points the {@code Redlock} at them, in place of {@code redlock.nodes};</li>
 * <li>they are a {@link RedisNodes} bean, so that a test can inject them and kill, pause, resume, restart or cut off
 * a node ({@code nodes.node(0).pause()});</li>
 * <li>after each test method, faults are undone (killed nodes restarted on their ports, paused ones resumed, cut
 * off ones healed) and every key is deleted; before each test method, the test waits (up to 10 s) until the
 * {@code Redlock} of the context is connected to every node again, so no test inherits another's fault;</li>
 * <li>{@code redlock.restart-quarantine} defaults to {@code never} (any property source of the test or the
 * application overrides it): a node that a test restarted would otherwise not vote for {@code redlock.max-ttl}
 * after it, in the tests that follow. Set it to {@code auto} to test the quarantine itself.</li>
 * </ul>
 * <pre>{@code
 * @SpringBootTest
 * @RedlockNodes(count = 3)
 * class PaymentTests {
 *
 *     @Autowired
 *     RedisNodes nodes;
 *
 *     @Test
 *     void paysWhileOneNodeIsFrozen() {
 *         this.nodes.node(0).pause();
 *         // call the @Redlocked code: 2 of 3 nodes are a quorum
 *     }
 *
 * }
 * }</pre>
 * Node indexes start at 0. Do not combine it with {@code @ServiceConnection("redlock")} containers: both would
 * give the context its nodes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface RedlockNodes {

    /**
     * Returns how many nodes to start: an odd number, 3 or more, to test the quorum as in production.
     * @return the node count, at least 1
     */
    int count() default 3;

}
