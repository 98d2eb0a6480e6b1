package io.github.redlock.autoconfigure;

import io.lettuce.core.resource.DefaultClientResources;

/**
 * Customizes the Lettuce resources (event loops, timer) that the starter's node connections share, before
 * they are built: e.g. thread pool sizes, or tracing. Declare it as a bean; all such beans are applied in
 * order. Replacing the timer gives up the 10 ms tick that makes node timeouts of tens of ms precise.
 */
@FunctionalInterface
public interface RedlockClientResourcesBuilderCustomizer {

    /**
     * Customizes the builder.
     * @param builder the builder, set up with Redlock's timer and reconnect delay
     */
    void customize(DefaultClientResources.Builder builder);

}
