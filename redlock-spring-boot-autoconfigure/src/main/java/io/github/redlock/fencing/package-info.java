/**
 * Storage that enforces fencing tokens: writes that a storage applies only when their token is not below the
 * resource's fence, so that a holder that paused past its lease cannot overwrite a later holder's data
 * ({@link io.github.redlock.fencing.RedisFence} for data in Redis, {@link io.github.redlock.fencing.JdbcFence} for a
 * relational database, {@link io.github.redlock.fencing.StaleFencingTokenException} for the refusal of either).
 */
@NullMarked
package io.github.redlock.fencing;

import org.jspecify.annotations.NullMarked;
