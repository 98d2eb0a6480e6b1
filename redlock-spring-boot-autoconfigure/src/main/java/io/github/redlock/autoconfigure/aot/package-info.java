/**
 * Ahead-of-time processing and native images: the runtime hints of the starter (internal; may change without notice).
 */
@NullMarked
package io.github.redlock.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
