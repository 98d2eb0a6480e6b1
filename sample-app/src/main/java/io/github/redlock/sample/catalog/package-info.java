/**
 * A catalog rebuild of unknown length: a short ttl, extended automatically up to a maximum hold.
 */
package io.github.redlock.sample.catalog;
