/**
 * A price list read by many and written by one: the read-write lock.
 */
package io.github.redlock.sample.prices;
