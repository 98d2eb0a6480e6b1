package io.github.redlock.core.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the observations of lock operations: their name, their contextual (span) name and their key
 * values. Give one of your own to {@code Redlock.builder().observationConvention(…)} (or, with the Spring Boot
 * starter, as a bean) to replace {@link DefaultRedlockObservationConvention}, or extend that class to add to it.
 */
public interface RedlockObservationConvention extends ObservationConvention<RedlockObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof RedlockObservationContext;
    }

}
