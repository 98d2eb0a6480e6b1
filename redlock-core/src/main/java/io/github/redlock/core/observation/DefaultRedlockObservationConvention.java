package io.github.redlock.core.observation;

import java.util.Locale;
import java.util.Map;

import io.github.redlock.core.observation.RedlockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redlock.core.observation.RedlockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link RedlockObservationConvention}: every operation is an observation named {@code redlock.lock}
 * (so that its meters never clash with the lock's own {@code redlock.acquire}, {@code redlock.release} and
 * {@code redlock.extend} timers), with the span name {@code redlock acquire}, {@code redlock release} or
 * {@code redlock extend}. Low-cardinality key values, the same three for every operation:
 * {@code redlock.operation}, {@code redlock.mode}, {@code redlock.outcome}. High-cardinality (spans only):
 * {@code redlock.key}, {@code redlock.ttl}, {@code redlock.nodes}, {@code redlock.nodes.agreed},
 * {@code redlock.quorum}, and, where they apply, {@code redlock.attempts}, {@code redlock.fencing.token} and
 * {@code redlock.automatic}. See {@link RedlockObservationDocumentation}.
 */
public class DefaultRedlockObservationConvention implements RedlockObservationConvention {

    /** The name of every observation of this convention. */
    public static final String NAME = "redlock.lock";

    /** Creates the convention. */
    public DefaultRedlockObservationConvention() {
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(RedlockObservationContext context) {
        return "redlock " + operation(context);
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RedlockObservationContext context) {
        return KeyValues.of(LowCardinalityKeyNames.OPERATION.withValue(operation(context)),
                LowCardinalityKeyNames.MODE.withValue(context.getMode()), LowCardinalityKeyNames.OUTCOME.withValue(context.getOutcome()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(RedlockObservationContext context) {
        KeyValues values = KeyValues.of(HighCardinalityKeyNames.KEY.withValue(context.getKey()),
                HighCardinalityKeyNames.TTL.withValue(context.getTtl().toMillis() + "ms"),
                HighCardinalityKeyNames.NODES.withValue(nodes(context.getNodes())),
                HighCardinalityKeyNames.NODES_AGREED.withValue(Integer.toString(context.getAgreed())),
                HighCardinalityKeyNames.QUORUM.withValue(Integer.toString(context.getQuorum())));
        if (context.getOperation() == RedlockObservationContext.Operation.ACQUIRE) {
            values = values.and(HighCardinalityKeyNames.ATTEMPTS.withValue(Integer.toString(context.getAttempts())));
        }
        if (context.getOperation() == RedlockObservationContext.Operation.EXTEND) {
            values = values.and(HighCardinalityKeyNames.AUTOMATIC.withValue(Boolean.toString(context.isAutomatic())));
        }
        String holder = context.getHolder();
        if (holder != null) {
            values = values.and(HighCardinalityKeyNames.HOLDER.withValue(holder));
        }
        if (context.getFencingToken() != 0) {
            values = values.and(HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(context.getFencingToken())));
        }
        return values;
    }

    private static String operation(RedlockObservationContext context) {
        return context.getOperation().name().toLowerCase(Locale.ROOT);
    }

    /** The nodes' answers as {@code host:port=answer}, comma-separated, in the nodes' order. */
    private static String nodes(Map<String, String> answers) {
        StringBuilder text = new StringBuilder();
        answers.forEach((node, answer) -> text.append((text.length() > 0) ? ", " : "").append(node).append('=').append(answer));
        return text.toString();
    }

}
