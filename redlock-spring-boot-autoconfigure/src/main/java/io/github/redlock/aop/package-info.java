/**
 * The aspect behind {@code @Redlocked}: key templates, per-method resolution and re-entrancy.
 */
@NullMarked
package io.github.redlock.aop;

import org.jspecify.annotations.NullMarked;
