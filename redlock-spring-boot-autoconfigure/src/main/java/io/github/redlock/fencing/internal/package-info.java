/**
 * Not API: the machinery behind {@code @Redlocked(fenced = true)} and the fencing-token header's server side, which
 * gives the transactions of a piece of work a fence check before they commit. May change in any release.
 */
@NullMarked
package io.github.redlock.fencing.internal;

import org.jspecify.annotations.NullMarked;
