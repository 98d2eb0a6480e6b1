/**
 * The aspect behind {@code @Redlocked}: key templates, per-method resolution and re-entrancy.
 */
package io.github.redlock.aop;
