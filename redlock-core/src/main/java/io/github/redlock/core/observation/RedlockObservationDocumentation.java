package io.github.redlock.core.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of a Redlock and their key names, as Micrometer documents observations.
 */
public enum RedlockObservationDocumentation implements ObservationDocumentation {

    /** An acquisition, a release or an extension of a lock (see {@link RedlockObservationContext.Operation}). */
    LOCK {

        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultRedlockObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return LowCardinalityKeyNames.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityKeyNames.values();
        }

        @Override
        public String getPrefix() {
            return "redlock.";
        }

    };

    /** Key names with a bounded set of values: on meters and spans. */
    public enum LowCardinalityKeyNames implements KeyName {

        /** {@code acquire}, {@code release} or {@code extend}. */
        OPERATION {
            @Override
            public String asString() {
                return "redlock.operation";
            }
        },

        /** {@code exclusive}, {@code read}, {@code write} or {@code multi}. */
        MODE {
            @Override
            public String asString() {
                return "redlock.mode";
            }
        },

        /** What came of the operation, as {@link RedlockObservationContext#getOutcome()} lists. */
        OUTCOME {
            @Override
            public String asString() {
                return "redlock.outcome";
            }
        }

    }

    /** Key names with unbounded values: on spans only. */
    public enum HighCardinalityKeyNames implements KeyName {

        /** The lock's key as the caller named it. */
        KEY {
            @Override
            public String asString() {
                return "redlock.key";
            }
        },

        /** The time to live asked for, e.g. {@code 10000ms}. */
        TTL {
            @Override
            public String asString() {
                return "redlock.ttl";
            }
        },

        /** What each node answered to the last round: {@code host:port=answer}, comma-separated. */
        NODES {
            @Override
            public String asString() {
                return "redlock.nodes";
            }
        },

        /** How many nodes said yes in the last round. */
        NODES_AGREED {
            @Override
            public String asString() {
                return "redlock.nodes.agreed";
            }
        },

        /** How many nodes must agree. */
        QUORUM {
            @Override
            public String asString() {
                return "redlock.quorum";
            }
        },

        /** How many attempts an acquisition made (acquisitions only). */
        ATTEMPTS {
            @Override
            public String asString() {
                return "redlock.attempts";
            }
        },

        /** The lease's fencing token (where it has one). */
        FENCING_TOKEN {
            @Override
            public String asString() {
                return "redlock.fencing.token";
            }
        },

        /** Who holds the lock a failed acquisition found taken (its instance id, or {@code unknown}), where one holder was named. */
        HOLDER {
            @Override
            public String asString() {
                return "redlock.holder";
            }
        },

        /** Whether the lease's automatic extension sent an extension (extensions only). */
        AUTOMATIC {
            @Override
            public String asString() {
                return "redlock.automatic";
            }
        }

    }

}
