/**
 * The sample's HTTP endpoints, and a contention demo that many concurrent payments on one order drive.
 */
package io.github.redlock.sample.web;
