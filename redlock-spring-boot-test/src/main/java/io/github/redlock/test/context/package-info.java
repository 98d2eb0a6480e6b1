/**
 * {@link io.github.redlock.test.context.RedlockNodes @RedlockNodes}: real Redis nodes for the application context of
 * a Spring test, with faults to inject.
 */
@NullMarked
package io.github.redlock.test.context;

import org.jspecify.annotations.NullMarked;
