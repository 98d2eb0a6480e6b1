/**
 * The {@link io.github.redlock.annotation.Redlocked @Redlocked} annotation and its options.
 */
package io.github.redlock.annotation;
