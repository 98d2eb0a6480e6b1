/**
 * Spring application events of the Redlock starter.
 */
@NullMarked
package io.github.redlock.event;

import org.jspecify.annotations.NullMarked;
