package io.github.redlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link RedlockConfigurationException} with what is wrong and what to write instead.
 */
class RedlockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<RedlockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedlockConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
