/**
 * A scheduled job that runs on one instance only: onFailure = SKIP.
 */
package io.github.redlock.sample.settlement;
