/**
 * The {@link io.github.redlock.annotation.Redlocked @Redlocked} annotation and its options.
 */
@NullMarked
package io.github.redlock.annotation;

import org.jspecify.annotations.NullMarked;
