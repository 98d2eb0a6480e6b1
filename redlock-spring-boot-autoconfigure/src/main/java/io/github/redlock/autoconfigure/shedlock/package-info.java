/**
 * Auto-configuration of the ShedLock lock provider backed by Redlock.
 */
@NullMarked
package io.github.redlock.autoconfigure.shedlock;

import org.jspecify.annotations.NullMarked;
