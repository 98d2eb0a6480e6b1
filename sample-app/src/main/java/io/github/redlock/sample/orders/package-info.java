/**
 * Payments, at most one at a time per order across instances: an exclusive @Redlocked lock keyed by the order.
 */
package io.github.redlock.sample.orders;
