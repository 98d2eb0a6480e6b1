/**
 * Auto-configuration of the Spring Integration lock registry backed by Redlock.
 */
@NullMarked
package io.github.redlock.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
