/**
 * The sample's HTTP endpoints, a contention demo that many concurrent payments on one order drive, and a
 * fencing demo in which a database refuses the write of a holder that paused past its lease.
 */
package io.github.redlock.sample.web;
