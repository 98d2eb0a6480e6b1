/**
 * Auto-configuration of the ShedLock lock provider backed by Redlock.
 */
package io.github.redlock.autoconfigure.shedlock;
