/**
 * Auto-configuration of the Spring Integration lock registry backed by Redlock.
 */
package io.github.redlock.autoconfigure.integration;
