/**
 * Spring application events of the Redlock starter.
 */
package io.github.redlock.event;
