package io.github.redlock.aop;

import java.time.Duration;

/**
 * What a {@code @Redlocked} method gets when its annotation leaves a setting empty, and the limit on its ttl.
 * The auto-configuration makes it from the {@code redlock.*} properties.
 *
 * @param ttl the ttl of annotations that set none
 * @param waitTime the wait time of annotations that set none
 * @param maxHold the maximum hold of auto-extended annotations that set none
 * @param maxTtl the longest ttl an annotation may ask for
 */
public record RedlockedDefaults(Duration ttl, Duration waitTime, Duration maxHold, Duration maxTtl) {
}
