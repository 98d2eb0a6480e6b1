/**
 * {@link io.github.redlock.test.context.RedlockNodes @RedlockNodes}: real Redis nodes for the application context of
 * a Spring test, with faults to inject.
 */
package io.github.redlock.test.context;
