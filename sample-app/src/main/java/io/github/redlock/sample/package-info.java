/**
 * A runnable order service that uses the Redlock starter the way applications will: one package per use case.
 */
package io.github.redlock.sample;
