/**
 * Auto-configuration of the fences that a relational database enforces ({@code io.github.redlock.fencing.JdbcFence}).
 */
@NullMarked
package io.github.redlock.autoconfigure.fencing;

import org.jspecify.annotations.NullMarked;
